import { meter, twean, type MeterOptions } from 'meters';
import { tween, type Easing } from 'meters';
import { calibrate } from 'meters';
import { calibrat } from 'meters';
import { themed } from 'meters';
import { themd } from 'meters';
import { animate } from 'meters-motion';

const options: MeterOptions = { min: 0, max: 10, easing: 'linear', theme: 'dark' };
const mode: Easing = 'ease-in';
calibrate(2);
animate(options, 200);
export const levels = [meter(options), tween(0, 1), twean, calibrat, mode, themed(options), themd];
