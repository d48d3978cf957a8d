import { labels } from './labels';
import { icons } from './icons';

export const toolbar = [labels.save, labels.cancel, icons];
