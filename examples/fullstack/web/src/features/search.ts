import { get } from '../api/request';
import { API_ROOT } from '../api/request';
import { debounce } from '../utils/timing';

// Search as the user types, at most one request per 300 ms.
export const searchArticles = debounce(
  (tag: string) => get(`/articles?tag=${encodeURIComponent(tag)}&limit=20`),
  300,
);

export const articleLink = (slug: string) => `${API_ROOT}/articles/${slug}`;
