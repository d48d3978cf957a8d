import { del, get, post } from '../api/request';

export const listArticles = (page: number) => get(`/articles?limit=20&offset=${page * 20}`);

export const getArticle = (slug: string) => get(`/articles/${slug}`);

export const comments = (slug: string) => get(`/articles/${slug}/comments`);

export const addComment = (slug: string, body: string) => post(`/articles/${slug}/comments`, { body });

// Phantom: the contract has no way to delete a comment.
export const deleteComment = (slug: string, id: number) => del(`/articles/${slug}/comments/${id}`);

// Phantom: favorites were never specified.
export const favorite = (slug: string) => post(`/articles/${slug}/favorite`);
