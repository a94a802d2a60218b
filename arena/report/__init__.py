"""What happened in a set of games, to look at: the static web report (`arena report`) and one game
as text (`arena show`).

`games` reads game records, `stats` sums them up per entrant, `svg` draws the plots, `pages` fills
each page's template (`templates/`, rendered by `templating`, the arena's one way to write HTML),
`site` writes the site, `show` prints one game in the terminal. The pages' script and style are in
`static/`.
"""
