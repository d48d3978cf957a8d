// The articles service (Express).
const express = require('express');

const app = express();

app.get('/api/articles', (req, res) => res.json([]));
app.get('/api/articles/:slug', (req, res) => res.json({ slug: req.params.slug }));
app.post('/api/articles/:slug/comments', (req, res) => res.status(201).json({}));

module.exports = app;
