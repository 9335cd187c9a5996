module example.com/repo

go 1.26
