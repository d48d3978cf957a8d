// The articles service (Express).
const express = require('express');

const app = express();

app.get('/api/articles', (req, res) => res.json([]));
app.get('/api/articles/:slug', (req, res) => res.json({ slug: req.params.slug }));
app.post('/api/articles/:slug/comments', (req, res) => res.status(201).json({}));
app.get('/api/articles/:slug/comments', (req, res) => res.json([]));
app.post('/api/articles', (req, res) => res.status(201).json({}));
app.put('/api/articles/:slug', (req, res) => res.json({ slug: req.params.slug }));
app.get('/api/tags', (req, res) => res.json([]));

module.exports = app;
