"""Synthetic training data: card faces rendered from real SVG decks and a scene composer."""
