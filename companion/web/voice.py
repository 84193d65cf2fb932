"""What the table screen (and a phone with its voice on) says aloud, step by step.

Every sentence is written whole here, a `Text` with named holes, so each page says it in
its own language (the web layer renders the lines with `i18n.say`); nothing else builds a
spoken sentence. The lines are made from the view everyone may see (`game.view(state,
None)`), never from a seat's own view: a spoken line cannot depend on a pick before its
reveal.

A line is (key, sentences). The key names the moment it belongs to (round 2, card 4's
decision), so a page that has said it once does not say it again when it reads the same
moment after a reconnect; the sentences are what is said, one after the other.
"""

from __future__ import annotations

from ..games.words import Text, join_names, t, tn

# A plural sentence (`tn`, its holes standing for themselves) agrees with the count given to `say`.
SENTENCES = {
    # The Wicked Forest
    "wf.turn_card": t("{leader}, turn card {number} face up."),
    "wf.decide": t("Card {number}: {card}. Stay or return?"),
    "wf.card": tn("{count} Flower", "{count} Flowers", 1),
    "wf.card_witch": tn("{count} Flower and a Witch", "{count} Flowers and a Witch", 1),
    "wf.everyone_chose": t("Everyone has chosen!"),
    "wf.returns": tn("{names} returns.", "{names} return.", 1, names="{names}"),
    "wf.stays": tn("{names} stays.", "{names} stay.", 1, names="{names}"),
    "wf.round": t("Round {round}. {leader} leads."),
    "wf.final_round": t("This is the final round!"),
    # Woodland Wizards
    "ww.round": t("Round {round}. {name} is the starting player."),
    "ww.wandering_turn": t("{name}, your turn: draw a card, then play a card."),
    "ww.phase": t("{phase} phase. {hint}"),
    "ww.boost_round": t("Boost round {number} of {rounds}. {hint}"),
    "ww.round_won": t("{name} wins round {round}."),
    # Explorers of the Woodlands
    "ex.place_tile": t("{name}, place a Forest tile for {hero}."),
    "ex.turn": t("{name}, your turn with {hero}."),
    "ex.boss": t("The Boss is revealed: {boss}!"),
    "ex.threat": t("The Boss's threat is now {threat}."),
    "ex.enraged": t("The Boss is enraged!"),
    # The Mysterious Forest
    "mf.scout": t("{name}, your turn: turn card {number} over and look together."),
    "mf.roll": t("{name}, your turn: roll the 4 dice!"),
    "mf.forest": t("Jonas is on card {number}. Turn it face up. Move its Equipment from the Backpack onto it."),
    "mf.wanderer": t("The Wanderer! He offers his crystal weapon."),
    "mf.queen": t("The Queen of the Draconia! Turn the card over and cover all its Equipment."),
    "mf.won": t("You did it! Jonas beat the Queen of the Draconia!"),
    "mf.lost": t("Not this time. Jonas is safe and ready to try again!"),
    # Every game
    "game_over": t("The game is over. {ending}"),
    "time_up": t("Time is up!"),
}


def say(key: str, count: int | None = None, **values) -> Text:
    """The sentence `key` with its holes filled in (the one place a line is made); a plural
    sentence agrees with `count`."""
    sentence = SENTENCES[key]
    if sentence.plural is not None:
        return Text(sentence.message, values, plural=sentence.plural, count=count if count is not None else 1)
    return Text(sentence.message, values) if values else sentence


def lines(game_id: str, view: dict, ending: str | None = None, say_in=str) -> list[dict]:
    """The lines of the table's current moment, oldest first: [{"key", "text"}], each
    sentence said by `say_in` (the page's language: `i18n.say`; English by default)."""
    made = _BY_GAME.get(game_id, lambda v: [])(view)
    if view.get("game_over") and ending:
        made.append(("over", say("game_over", ending=ending)))
    return [{"key": key, "text": " ".join(str(say_in(part)) for part in
                                          (text if isinstance(text, list) else [text]))}
            for key, text in made]


def _name(view: dict, seat) -> str:
    players = view.get("players") or []
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(players):
        return players[seat]
    return ""


def _wicked_forest(v: dict) -> list[tuple]:
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
            parts.append(say("wf.returns", count=len(back), names=join_names(back)))
        if stay:
            parts.append(say("wf.stays", count=len(stay), names=join_names(stay)))
        out.append((f"wf-{v['round']}-reveal-{len(history)}", parts))
    if v.get("phase") == "reveal" and not v.get("game_over"):
        number = len(v.get("cards") or []) + 1
        out.append((f"wf-{v['round']}-turn-{number}", say("wf.turn_card", leader=leader, number=number)))
    if v.get("phase") == "choose" and v.get("cards"):
        card = v["cards"][-1]
        text = say("wf.card_witch" if card.get("witch") else "wf.card", count=int(card.get("flowers") or 0))
        out.append((f"wf-{v['round']}-decide-{v.get('decision')}",
                    say("wf.decide", number=v.get("decision"), card=text)))
    return out


def _woodland_wizards(v: dict) -> list[tuple]:
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
        out.append((f"ww-{rnd}-won", [say("ww.round_won", name=_name(v, v["round_winner"]), round=rnd)]
                    + list(v.get("round_ties") or [])))
    return out


def _explorers(v: dict) -> list[tuple]:
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


def _mysterious_forest(v: dict) -> list[tuple]:
    out = []
    phase = v.get("phase")
    if phase == "setup":
        step = next((s for s in v.get("setup_steps", []) if not s["done"]), None)
        if step:
            out.append((f"mf-setup-{step['index']}", step["text"]))  # the step's own words
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
