module example.com/repo/nested

go 1.26
