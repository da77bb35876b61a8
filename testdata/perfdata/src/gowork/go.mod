module example.com/gowork

go 1.22
