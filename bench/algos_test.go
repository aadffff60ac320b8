package bench

import _ "github.com/ocbench/ocbench/algo/all" // the tests run every algorithm by name
