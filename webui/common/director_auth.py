"""The director's password pages, shared by the table app and the tournament hall."""

from __future__ import annotations

from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for

from webui.common.security import (
    check_director_password,
    director_password_set,
    is_local,
    login_director,
    set_director_password,
)

MIN_PASSWORD = 8


def setup_page(*, template: str, login_endpoint: str, home_endpoint: str, place: str) -> Any:
    """First run: choose the director password (only on ``place``'s own computer, only once)."""
    if director_password_set():
        return redirect(url_for(login_endpoint))
    if not is_local():
        abort(403, description=f"set the director password on the {place}'s own computer")
    error = None
    if request.method == "POST":
        password = request.form.get("password", "")
        if len(password) < MIN_PASSWORD:
            error = f"Use at least {MIN_PASSWORD} characters."
        elif password != request.form.get("again", ""):
            error = "The two passwords differ."
        else:
            set_director_password(password)
            login_director()
            flash("Director password set.")
            return redirect(url_for(home_endpoint))
    return render_template(template, error=error), (400 if error else 200)


def login_page(*, template: str, setup_endpoint: str, home_endpoint: str) -> Any:
    """The director's login: a wrong password is refused with 403 and said plainly."""
    if not director_password_set():
        return redirect(url_for(setup_endpoint))
    error = None
    if request.method == "POST":
        if check_director_password(request.form.get("password", "")):
            login_director()
            return redirect(url_for(home_endpoint))
        error = "Wrong password."
    return render_template(template, error=error), (403 if error else 200)
