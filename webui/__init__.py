"""gintray webui package."""
