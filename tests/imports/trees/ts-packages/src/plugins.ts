import { defineStore, type StoreOptions, type PluginContext, type PluginOptions } from 'augmented';

export const options: StoreOptions = { id: 'cart', persist: true };
export function install(ctx: PluginContext, opts?: PluginOptions) {
  defineStore(ctx.store + String(opts));
}
