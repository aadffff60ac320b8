// Package all registers every algorithm of ocbench (package algo): a
// program or test that runs algorithms by name imports it for its side
// effect.
package all

import (
	_ "github.com/ocbench/ocbench/algo/helaryplouzeauraynal" // helary-plouzeau-raynal, -line, -ring, -tree
	_ "github.com/ocbench/ocbench/algo/kakugawa"             // kakugawa
	_ "github.com/ocbench/ocbench/algo/kofl"                 // kofl
	_ "github.com/ocbench/ocbench/algo/lamport"              // lamport
	_ "github.com/ocbench/ocbench/algo/mishrasrimani"        // mishra-srimani
	_ "github.com/ocbench/ocbench/algo/mizunoneilsenrao"     // mizuno-neilsen-rao, -tree, -plane
	_ "github.com/ocbench/ocbench/algo/naimitrehelft"        // naimi-trehel-ft
	_ "github.com/ocbench/ocbench/algo/neilsenmizuno"        // neilsen-mizuno
	_ "github.com/ocbench/ocbench/algo/nishio"               // nishio
	_ "github.com/ocbench/ocbench/algo/quorum"               // maekawa, maekawa-grid, agrawal-el-abbadi
	_ "github.com/ocbench/ocbench/algo/ratoken"              // ricart-agrawala-token
	_ "github.com/ocbench/ocbench/algo/raymondkex"           // raymond-kex
	_ "github.com/ocbench/ocbench/algo/raynal"               // raynal
	_ "github.com/ocbench/ocbench/algo/retained"             // carvalho-roucairol, singhal
	_ "github.com/ocbench/ocbench/algo/ricartagrawala"       // ricart-agrawala
	_ "github.com/ocbench/ocbench/algo/sanders"              // sanders, sanders-broadcast
	_ "github.com/ocbench/ocbench/algo/singhaltoken"         // singhal-token
	_ "github.com/ocbench/ocbench/algo/srimanireddy"         // srimani-reddy
	_ "github.com/ocbench/ocbench/algo/suzukikasami"         // suzuki-kasami
	_ "github.com/ocbench/ocbench/opencube"                  // opencube
	_ "github.com/ocbench/ocbench/scheme"                    // naimi-trehel, raymond, centralized
)
