// shared command-line helpers
