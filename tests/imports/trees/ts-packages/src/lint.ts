import lintRules from 'lint-rules';
import { configs } from 'lint-rules';
import esmRules from 'esm-rules';
import mjsRules from 'mjs-rules';

export const plugins = { lint: lintRules.rules, recommended: configs.recommended, esm: esmRules, mjs: mjsRules };
