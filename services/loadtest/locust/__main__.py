"""``python -m services.loadtest.locust`` prints the shipped locustfile's
path: ``locust -f "$(python -m services.loadtest.locust)" --host HOST:PORT``.
(Locust, given this folder, skips files that start with "_", this one too.)"""

from services.loadtest.locust import print_locustfile

print_locustfile()
