from hipport.cli import main

main()
