from hipscan.cli import main

main()
