"""What operators read, shared by the command (scripts/tickwork_cli) and the console: the words
(words.py), the health route (health.py) and the views of schedules, runs and deliveries
(views.py) that both render. Nothing here is imported at a cold start."""
