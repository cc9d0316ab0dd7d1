"""gintray scorer package."""
