from termux.cli import main

raise SystemExit(main())
