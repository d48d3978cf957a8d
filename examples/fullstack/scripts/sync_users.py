"""Nightly job: copy users from the API into the CRM."""

import httpx
import requests

BASE = "http://localhost:8000/api"


def list_users():
    return requests.get(f"{BASE}/users", timeout=10).json()


def create_user(name: str, email: str):
    return requests.post(f"{BASE}/users", json={"name": name, "email": email}, timeout=10)


def fetch_user(user_id: str):
    with httpx.Client(base_url=BASE) as client:
        return client.get(f"/users/{user_id}").json()


def user_orders(user_id: str):
    # Phantom: orders live in another service and are not in this contract.
    return requests.get(f"{BASE}/users/{user_id}/orders", timeout=10).json()
