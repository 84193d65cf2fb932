"""Blueprints: pages and htmx partials, the JSON API, static vendor assets, errors."""
