import { connect } from 'modern';
import { retry } from 'modern/utils';
import { backoff } from 'modern/utils';
import { jitter } from 'modern/timing';
import { secret } from 'modern/internal/keys';
import { formatDate } from 'legacy';
import { clamp } from 'legacy/helpers';
import { lerp } from 'legacy/math';

export async function start(url: string) {
  await retry(() => connect(url), 3);
  console.log(backoff, jitter, secret, formatDate(new Date()), clamp(1, 0, 2), lerp);
}
