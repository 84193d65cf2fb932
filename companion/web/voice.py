"""What the table screen (and a phone with its voice on) says aloud, step by step.

Every sentence is written whole here, with named placeholders, so that one day each can be
handed to gettext as it is (`_(SENTENCES[key]) % values`); nothing else builds a spoken
sentence. The lines are made from the view everyone may see (`game.view(state, None)`),
never from a seat's own view: a spoken line cannot depend on a pick before its reveal.

A line is (key, text). The key names the moment it belongs to (round 2, card 4's
decision), so a page that has said it once does not say it again when it reads the same
moment after a reconnect; the text is what is said.
"""

from __future__ import annotations

from ..games.words import join_names, plural

SENTENCES = {
    # The Wicked Forest
    "wf.turn_card": "%(leader)s, turn card %(number)s face up.",
    "wf.decide": "Card %(number)s: %(card)s. Stay or return?",
    "wf.card": "%(flowers)s",
    "wf.card_witch": "%(flowers)s and a Witch",
    "wf.everyone_chose": "Everyone has chosen!",
    "wf.one_returns": "%(names)s returns.",
    "wf.several_return": "%(names)s return.",
    "wf.one_stays": "%(names)s stays.",
    "wf.several_stay": "%(names)s stay.",
    "wf.round": "Round %(round)s. %(leader)s leads.",
    "wf.final_round": "This is the final round!",
    # Woodland Wizards
    "ww.round": "Round %(round)s. %(name)s is the starting player.",
    "ww.wandering_turn": "%(name)s, your turn: draw a card, then play a card.",
    "ww.phase": "%(phase)s phase. %(hint)s",
    "ww.boost_round": "Boost round %(number)s of %(rounds)s. %(hint)s",
    "ww.round_won": "%(name)s wins round %(round)s.",
    # Explorers of the Woodlands
    "ex.place_tile": "%(name)s, place a Forest tile for %(hero)s.",
    "ex.turn": "%(name)s, your turn with %(hero)s.",
    "ex.boss": "The Boss is revealed: %(boss)s!",
    "ex.threat": "The Boss's threat is now %(threat)s.",
    "ex.enraged": "The Boss is enraged!",
    # The Mysterious Forest
    "mf.setup_step": "%(step)s",
    "mf.scout": "%(name)s, your turn: turn card %(number)s over and look together.",
    "mf.roll": "%(name)s, your turn: roll the 4 dice!",
    "mf.forest": "Jonas is on card %(number)s. Turn it face up. Move its Equipment from the Backpack onto it.",
    "mf.wanderer": "The Wanderer! He offers his crystal weapon.",
    "mf.queen": "The Queen of the Draconia! Turn the card over and cover all its Equipment.",
    "mf.won": "You did it! Jonas beat the Queen of the Draconia!",
    "mf.lost": "Not this time. Jonas is safe and ready to try again!",
    # Every game
    "game_over": "The game is over. %(ending)s",
    "time_up": "Time is up!",
}


def say(key: str, **values) -> str:
    """The sentence `key` with its placeholders filled in (the one place a line is made)."""
    return SENTENCES[key] % values if values else SENTENCES[key]


def lines(game_id: str, view: dict, ending: str | None = None) -> list[dict]:
    """The lines of the table's current moment, oldest first: [{"key", "text"}]."""
    made = _BY_GAME.get(game_id, lambda v: [])(view)
    if view.get("game_over") and ending:
        made.append(("over", say("game_over", ending=ending)))
    return [{"key": key, "text": text} for key, text in made]


def _name(view: dict, seat) -> str:
    players = view.get("players") or []
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(players):
        return players[seat]
    return ""


def _wicked_forest(v: dict) -> list[tuple[str, str]]:
    out = []
    history = v.get("history") or []
    leader = _name(v, v.get("leader"))
    out.append((f"wf-round-{v['round']}", say("wf.round", round=v["round"], leader=leader)))
    if v.get("final_round"):
        out.append(("wf-final", say("wf.final_round")))
    if history:
        # The last reveal: said once, when every pick shows at the same moment.
        last = history[-1]
        players = v.get("players") or []
        back = [players[s] for s, pick in enumerate(last.get("choices", [])) if pick == "return" and s < len(players)]
        stay = [players[s] for s, pick in enumerate(last.get("choices", [])) if pick == "stay" and s < len(players)]
        parts = [say("wf.everyone_chose")]
        if back:
            parts.append(say("wf.one_returns" if len(back) == 1 else "wf.several_return", names=join_names(back)))
        if stay:
            parts.append(say("wf.one_stays" if len(stay) == 1 else "wf.several_stay", names=join_names(stay)))
        out.append((f"wf-{v['round']}-reveal-{len(history)}", " ".join(parts)))
    if v.get("phase") == "reveal" and not v.get("game_over"):
        number = len(v.get("cards") or []) + 1
        out.append((f"wf-{v['round']}-turn-{number}", say("wf.turn_card", leader=leader, number=number)))
    if v.get("phase") == "choose" and v.get("cards"):
        card = v["cards"][-1]
        flowers = plural(int(card.get("flowers") or 0), "Flower")
        text = say("wf.card_witch" if card.get("witch") else "wf.card", flowers=flowers)
        out.append((f"wf-{v['round']}-decide-{v.get('decision')}",
                    say("wf.decide", number=v.get("decision"), card=text)))
    return out


def _woodland_wizards(v: dict) -> list[tuple[str, str]]:
    out = []
    rnd, phase = v["round"], v.get("phase")
    out.append((f"ww-round-{rnd}", say("ww.round", round=rnd, name=_name(v, v.get("starting_player")))))
    if phase == "wandering" and v.get("wandering_seat") is not None:
        out.append((f"ww-{rnd}-wander-{v.get('wandering_turn')}",
                    say("ww.wandering_turn", name=_name(v, v["wandering_seat"]))))
    elif phase == "boost":
        out.append((f"ww-{rnd}-boost-{v.get('boost_round')}",
                    say("ww.boost_round", number=v.get("boost_round"), rounds=v.get("boost_rounds"),
                        hint=v.get("phase_hint") or "")))
    elif phase in ("contest", "scoring", "cleanup"):
        out.append((f"ww-{rnd}-{phase}", say("ww.phase", phase=v.get("phase_label"), hint=v.get("phase_hint") or "")))
    if v.get("settled") and v.get("round_winner") is not None:
        text = " ".join([say("ww.round_won", name=_name(v, v["round_winner"]), round=rnd)]
                        + list(v.get("round_ties") or []))
        out.append((f"ww-{rnd}-won", text))
    return out


def _explorers(v: dict) -> list[tuple[str, str]]:
    out = []
    rnd = v["round"]
    heroes = {hero["id"]: hero for hero in v.get("heroes") or []}
    if v.get("phase") == "growth" and v.get("placer"):
        hero = heroes.get(v["placer"], {})
        out.append((f"ex-{rnd}-tile-{v.get('growth_done')}",
                    say("ex.place_tile", name=v.get("placer_owner") or "", hero=hero.get("label", ""))))
    if v.get("phase") == "adventure" and v.get("active"):
        hero = heroes.get(v["active"], {})
        out.append((f"ex-{rnd}-turn-{v['active']}",
                    say("ex.turn", name=v.get("active_owner") or "", hero=hero.get("label", ""))))
    boss = v.get("boss") or {}
    if boss.get("revealed"):
        label = boss.get("name") or next((c["label"] for c in v.get("boss_choices", [])
                                          if c["key"] == boss.get("key")), "")
        out.append((f"ex-boss-{boss.get('key')}", say("ex.boss", boss=label)))
        if boss.get("threat"):
            out.append((f"ex-threat-{boss['threat']}", say("ex.threat", threat=boss["threat"])))
    return out


def _mysterious_forest(v: dict) -> list[tuple[str, str]]:
    out = []
    phase = v.get("phase")
    if phase == "setup":
        step = next((s for s in v.get("setup_steps", []) if not s["done"]), None)
        if step:
            out.append((f"mf-setup-{step['index']}", say("mf.setup_step", step=step["text"])))
    elif phase == "scouting" and v.get("scout_seat") is not None:
        out.append((f"mf-scout-{v.get('current_card')}",
                    say("mf.scout", name=_name(v, v["scout_seat"]), number=v.get("current_card"))))
    elif phase == "packing" and v.get("roll_seat") is not None:
        out.append((f"mf-roll-{len(v.get('rolls') or [])}", say("mf.roll", name=_name(v, v["roll_seat"]))))
    elif phase == "expedition":
        jonas = v.get("jonas")
        kind = v.get("path", [])[jonas]["kind"] if isinstance(jonas, int) and jonas < len(v.get("path", [])) else None
        key = {"forest": "mf.forest", "wanderer": "mf.wanderer", "final": "mf.queen"}.get(kind)
        if key:
            out.append((f"mf-card-{jonas}", say(key, number=jonas)))
    elif phase == "over":
        won = (v.get("result") or "") == "won"
        out.append(("mf-end", say("mf.won" if won else "mf.lost")))
    return out


_BY_GAME = {"wicked-forest": _wicked_forest, "woodland-wizards": _woodland_wizards,
            "explorers-of-the-woodlands": _explorers, "mysterious-forest": _mysterious_forest}
