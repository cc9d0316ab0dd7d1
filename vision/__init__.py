"""gintray vision package."""
