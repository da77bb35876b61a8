module pprofwork

go 1.26
