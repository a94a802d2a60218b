module blackout-arena/bots/go

go 1.19
