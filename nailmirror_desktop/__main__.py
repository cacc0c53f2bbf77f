from nailmirror_desktop.cli import main

raise SystemExit(main())
