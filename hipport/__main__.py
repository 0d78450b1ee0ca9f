from hipport.launch import main

main()
