"""The users service (FastAPI). specward finds these routes for "go to implementation"."""

from fastapi import APIRouter

router = APIRouter(prefix="/api")


@router.get("/users")
def list_users():
    return []


@router.get("/users/{user_id}")
def get_user(user_id: str):
    return {"id": user_id}


@router.delete("/users/{user_id}")
def delete_user(user_id: str):
    return None


@router.post("/users")
def create_user(user: dict):
    return user


@router.get("/user/profile")
def read_profile():
    return {}


@router.put("/user/profile")
def update_profile(profile: dict):
    return profile
