from nailmirror_hq.cli import main

raise SystemExit(main())
