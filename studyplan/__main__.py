from studyplan.cli.main import main

main()
