package main

// The task families the command trains and evaluates (envs/builtin
// registers them; each is one package and one line there).
import _ "github.com/artist-rl/artist/envs/builtin"
