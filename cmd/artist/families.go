package main

// The task families the command trains and evaluates (envs/families
// registers them; each is one package and one line there).
import _ "github.com/artist-rl/artist/envs/families"
