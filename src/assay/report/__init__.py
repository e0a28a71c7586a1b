"""Events (the JSON-lines contract) and their consumers."""
