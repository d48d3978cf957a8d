import json
import os

import yaml
import taskqueue_turbo

import app.helpers
from app import Task, make_task
from app.models import User, Usr
from app.shortcuts import DEFAULT_PRIORITY, Priority
from . import billing
from . import reports
from ..models import Task as Model
from .storage import save


def export(tasks: list[Task], owner: User) -> str:
    data = [{"title": t.title, "owner": owner.name} for t in tasks]
    print(os.getcwd(), yaml, taskqueue_turbo, app.helpers, make_task, Usr, DEFAULT_PRIORITY, Priority)
    print(billing.invoice_total([1.0]), reports, Model, save)
    return json.dumps(data)
