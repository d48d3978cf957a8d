import { mount, flushSync, tweened, unmount } from 'bundled';
import { internalFlush } from 'bundled';
import { easing, spring } from 'bundled/motion';
import { createRoot, hydrateRoot, type RootOptions } from 'bundled/legacy';
import { parse, defaults, stringify, format, type ParseOptions } from 'implicit';
import { API_VERSION, BUILD_ID, track, untrack } from './types/globals';

export const options: RootOptions & ParseOptions = {};
export function render(el: Element) {
  mount(el);
  flushSync();
  track(API_VERSION + BUILD_ID);
  console.log(tweened(1), unmount, internalFlush, easing, spring, createRoot, hydrateRoot, untrack);
  return stringify(parse('x')) + String(defaults.strict) + String(format);
}
