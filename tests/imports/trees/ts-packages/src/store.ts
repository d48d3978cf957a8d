import createStore, { useStore, useSelector, VERSION, reset, type Store, type Theme } from 'kit';
import { useStoreState } from 'kit';
import { internalCounter } from 'kit';
import { createStor } from 'kit';

export const store: Store<number> = createStore(0);
export const theme: Theme = { accent: '#0af' };
export function current(): number {
  reset();
  console.log(VERSION, internalCounter, useStoreState, createStor);
  return useStore(store) + useSelector((n: number) => n);
}
