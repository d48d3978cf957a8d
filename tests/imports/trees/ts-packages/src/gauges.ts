import Gauges from 'gauges';
import { createGauge, useGauge, useGuage, GaugeOptions, presets, version } from 'gauges';
import type { Reading, Gauge, Readings } from 'gauges';
import { useGaugeTransition } from 'gauges';
import { strict, strikt } from 'cjs-lib';
import { mix, Swatch } from 'palette';

const options: GaugeOptions = { ...presets.speedometer, unit: 'percent' };
export const dial = createGauge(document.body, options);
export const hooks = [useGauge, useGuage, useGaugeTransition, Gauges.useGauge];
export type Both = Reading | Gauge | Readings | Swatch;
export const flags = [strict, strikt, version, mix('#fff', '#000')];
