import { api } from '../api/http';

export async function loadProfile() {
  const res = await api.get('/user/profile');
  return res.data;
}

// Phantom: there is no avatar endpoint (the nearest is GET /user/profile).
export async function loadAvatar() {
  const res = await api.get('/user/profile/avatar');
  return res.data;
}

export async function removeUser(id: string) {
  await api.delete(`/users/${id}`);
}

// Method mismatch: /users/{id} accepts GET and DELETE, not PATCH.
export async function renameUser(id: string, name: string) {
  await api.patch(`/users/${id}`, { name });
}
