"""Start Forest Table: `python app.py` serves it to the phones on this network."""

from __future__ import annotations

import argparse
import os

from companion import create_app
from companion.web.phone import lan_address


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve Forest Table on the local network.")
    parser.add_argument("--host", default=os.environ.get("FOREST_TABLE_HOST", "0.0.0.0"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("FOREST_TABLE_PORT", "8000")))
    args = parser.parse_args()
    app = create_app()
    shown = app.config.get("PUBLIC_URL") or f"http://{lan_address() or 'localhost'}:{args.port}"
    print(f"\n  Forest Table is running. On every phone at the table, open:\n\n      {shown}\n\n"
          f"  On the TV or the host's laptop, the table screen everyone sees (it follows the newest "
          f"table):\n\n      {shown}/screen\n")
    # threaded: each open live-update stream holds a thread of its own.
    app.run(host=args.host, port=args.port, threaded=True, debug=False, use_reloader=False)


app = create_app() if os.environ.get("FOREST_TABLE_WSGI") else None

if __name__ == "__main__":
    main()
