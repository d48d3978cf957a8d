import axios from 'axios';

// Every call through this instance goes to /api/...
export const api = axios.create({ baseURL: '/api', timeout: 10_000 });
