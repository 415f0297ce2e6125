"""Random action sequences, well-formed or not: never a 500, and the log always replays to the state."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper import Game, event_from_dict, preset

faces = st.integers(min_value=0, max_value=7)
dice = st.one_of(st.lists(faces, max_size=7), st.none(), st.just("1,5"), st.lists(st.booleans(), max_size=2))
actions = st.tuples(
    st.sampled_from(["throw", "keep", "bank", "piggyback", "correct", "undo"]),
    dice,
    st.one_of(st.none(), st.integers(min_value=-1, max_value=12)),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(actions, min_size=1, max_size=25), rules=st.sampled_from(["family", "wikipedia", "farkle"]))
def test_random_actions_answer_cleanly_and_keep_the_log_exact(client, steps, rules):
    created = client.post("/api/games", json={"players": ["Ann", "Bob"], "rules": rules, "source": "manual"})
    game_id, token = created.get_json()["id"], created.get_json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    expected_version = 0
    for action, thrown, version in steps:
        body: dict = {}
        if thrown is not None:
            body["dice"] = thrown
        if version is not None:
            body["version"] = version
        response = client.post(f"/api/games/{game_id}/{action}", json=body, headers=headers)
        assert response.status_code in (200, 400, 409, 422), response.get_json()
        answer = response.get_json()
        if response.status_code == 200:
            assert answer["version"] > expected_version
            expected_version = answer["version"]
        else:
            assert isinstance(answer["error"], str) and answer["error"]
    served = client.get(f"/api/games/{game_id}").get_json()
    events = client.get(f"/api/games/{game_id}/events").get_json()
    assert served["version"] == expected_version == len(events)
    replayed = Game(["Ann", "Bob"], preset(rules), [event_from_dict(e) for e in events]).state.to_dict()
    assert replayed["players"] == [{k: v for k, v in p.items() if k != "computer"} for p in served["players"]]
    assert (replayed["throw"], replayed["turn_total"], replayed["current"]) == (
        served["throw"],
        served["turn_total"],
        served["current"],
    )


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 20_000) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
create_bodies = st.fixed_dictionaries(
    {},
    optional={
        "players": st.one_of(st.lists(st.text(max_size=5), max_size=4), json_values),
        "rules": st.one_of(st.sampled_from(["family", "zilch", "FARKLE", "poker"]), json_values),
        "set": st.one_of(
            st.dictionaries(
                st.sampled_from(["target", "entry", "dice", "kinds", "piggyback", "x"]), json_values, max_size=3
            ),
            json_values,
        ),
        "house": st.one_of(st.lists(st.sampled_from(["greed", "amish", "nope"]), max_size=2), json_values),
        "source": st.one_of(st.sampled_from(["virtual", "manual", "camera", "tv"]), json_values),
    },
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.one_of(create_bodies, json_values))
def test_any_create_body_gets_201_or_a_clear_400(client, body):
    before = len(client.get("/api/games").get_json())
    response = client.post("/api/games", json=body)
    assert response.status_code in (201, 400), response.get_json()
    after = len(client.get("/api/games").get_json())
    if response.status_code == 400:
        assert response.get_json()["error"] and after == before
    else:
        assert after == before + 1 and response.get_json()["state"]["version"] == 0


flow_steps = st.sampled_from(
    [
        ("roll-off", {"face": 6}),
        ("roll-off", {"face": 3}),
        ("points", {"points": "+350"}),
        ("points", {"points": 500}),
        ("points", {"points": 30}),
        ("farkle", {}),
        ("bank", {}),
        ("undo", {}),
        ("undo-turn", {}),
        ("redo", {}),
        ("rename", {"player": 0, "name": "Annie"}),
        ("rename", {"player": 1, "name": "Ann"}),
        ("target", {"target": 2000}),
        ("target", {"target": 300}),
        ("add-player", {"name": "Cy"}),
        ("remove-player", {"player": 1}),
        ("throw", {"dice": [1, 5, 2, 3, 4]}),
        ("throw", {"dice": [2, 2, 3, 4, 6]}),
        ("keep", {"dice": [1]}),
    ]
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(flow_steps, min_size=1, max_size=30))
def test_random_flow_actions_export_and_import_to_the_same_game(client, steps):
    created = client.post("/api/games", json={"players": ["Ann", "Bob"], "rules": "family", "source": "manual"})
    game_id, token = created.get_json()["id"], created.get_json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    for action, body in steps:
        response = client.post(f"/api/games/{game_id}/{action}", json=body, headers=headers)
        assert response.status_code in (200, 422), (action, body, response.get_json())
    served = client.get(f"/api/games/{game_id}").get_json()
    exported = client.get(f"/history/{game_id}.json").get_json()
    imported = client.post("/api/games/import", json=exported)
    assert imported.status_code == 201, imported.get_json()
    again = imported.get_json()["state"]
    same = ("players", "current", "phase", "turn_total", "target", "roll_off", "first", "can_redo", "version")
    assert {k: again[k] for k in same} == {k: served[k] for k in same}
