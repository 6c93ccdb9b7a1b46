package server

import _ "github.com/artist-rl/artist/policy/backend/cpu" // the tests build models; the command links the backends
