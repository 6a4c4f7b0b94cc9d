from studyplan.cli import main

main()
