module example.com/doctest

go 1.22
