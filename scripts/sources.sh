# shellcheck shell=bash
# Pinned upstream sources of the benchmark data, shared by fetch-data.sh and
# derive-bfcl-tables.sh (source this file; it defines lists and functions
# and changes nothing).
#
# Each list line is: DEST REPOSITORY COMMIT PATH SHA256. A file is
# downloaded from $ARTIST_FETCH_BASE/REPOSITORY/COMMIT/PATH (by default the
# raw.githubusercontent.com form), checked against its full sha256 and
# moved to DEST under the target folder. Set ARTIST_FETCH_BASE to another
# base, for example a file:// mirror laid out the same way, to fetch
# elsewhere.

ARTIST_FETCH_BASE=${ARTIST_FETCH_BASE:-https://raw.githubusercontent.com}

# The module root, where run_artist runs the command.
ARTIST_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Verbatim files, DEST relative to the data folder. math_train/math.json is
# the MATH train split with extracted answers (deepscaler), which stands in
# for the training pool.
DATA_FILES="
math500/test.jsonl hkust-nlp/simpleRL-reason cf1c7858bfc145a27aa733e75d930d34f0d318a6 examples/simplelr_math_eval/data/math500/test.jsonl 35dc41080a3680858b27fa7e0533d2d547825316fc5dafe5d316f4ccc5a06132
aime24/test.jsonl QwenLM/Qwen2.5-Math a45202bd16f1ec06f433442dc1152d0074773465 evaluation/data/aime24/test.jsonl af2b8bd2aa911b6333ad0df32f3ca05c7ae8ed10f1731f4372c8ae26990bf7ac
amc23/test.jsonl QwenLM/Qwen2.5-Math a45202bd16f1ec06f433442dc1152d0074773465 evaluation/data/amc23/test.jsonl 43707e1ca784602d8479de24ee8ce36609dbebc46dd152b0b12a46611aa898a4
olympiadbench/test.jsonl QwenLM/Qwen2.5-Math a45202bd16f1ec06f433442dc1152d0074773465 evaluation/data/olympiadbench/test.jsonl bb8c1e38a16ea9eacb77530315a674d883f267fbff79183effc53681b4fcc416
math_train/math.json agentica-project/deepscaler 95ef74ffee001cce89463f2d61dfdce1d03576c1 deepscaler/data/train/math.json 569230b362fd501e1a33d8f29aae3b4b989d32e2b91b07c3f48493528c3bf6d2
bfcl_v3/BFCL_v3_multi_turn_base.json ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v3_multi_turn_base.json fe5c442849bdb2c2cdedc91f377411ff7fc6cd11af299766f4554d71d3d40f98
bfcl_v3/BFCL_v3_multi_turn_miss_func.json ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v3_multi_turn_miss_func.json 4a3a862f3e897d121ad94aa2c3f29ea752b7f7ac4eac6a23c8d502d1143e3492
bfcl_v3/BFCL_v3_multi_turn_miss_param.json ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v3_multi_turn_miss_param.json 25509d5c441017c51de784e7670647dbec11a22fe0640990b0dafabf32e8c8d1
bfcl_v3/BFCL_v3_multi_turn_long_context.json ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v3_multi_turn_long_context.json 17898c71fc5ceca4538e812602bc0338efafe665594380094bd4288f10394f51
bfcl_v3/possible_answer/BFCL_v3_multi_turn_base.json ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/data/possible_answer/BFCL_v3_multi_turn_base.json 6ea6bf48a2fc6067b57a289d314e7dc0582b12e22be53c8f7681599fba84a028
bfcl_v3/possible_answer/BFCL_v3_multi_turn_miss_func.json ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/data/possible_answer/BFCL_v3_multi_turn_miss_func.json e47b7f29224e43b8991ef6f5e6e01a936a4dccad17d1484610e6a33f27998b34
bfcl_v3/possible_answer/BFCL_v3_multi_turn_miss_param.json ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/data/possible_answer/BFCL_v3_multi_turn_miss_param.json 585d97fd579965a14b63d09882a680bcfbd1826ccf3e3a5de6fa68363c98a704
bfcl_v3/possible_answer/BFCL_v3_multi_turn_long_context.json ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/data/possible_answer/BFCL_v3_multi_turn_long_context.json 387fae6ec3146c1fd4cce8b901a69b1ec7a0844aa211f425f79049d35dd0b433
bfcl_v3/multi_turn_func_doc/gorilla_file_system.json ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/data/multi_turn_func_doc/gorilla_file_system.json 26c01bed25bf7affbc8d281cc8124ccdc220a64c374ac4a7a9181dea0a0468ee
bfcl_v3/multi_turn_func_doc/math_api.json ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/data/multi_turn_func_doc/math_api.json 83fa31708c89442bdcf12ac4dfbe3be8663ec9183a1b1524a9fda98164bc7e0b
bfcl_v3/multi_turn_func_doc/message_api.json ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/data/multi_turn_func_doc/message_api.json 2855068a0e77c4f1861fb2c1aa581590af85eb4b56994c6ebf79e30afb83be24
bfcl_v3/multi_turn_func_doc/posting_api.json ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/data/multi_turn_func_doc/posting_api.json 87f9fc404a06e4107d7c366f1399c596440e84c16cb119faf374b2f532d86e8b
bfcl_v3/multi_turn_func_doc/ticket_api.json ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/data/multi_turn_func_doc/ticket_api.json 1d78a0bbc15ca2dca3a2228be690b8b929783b2715175cd05b80ee2106581897
bfcl_v3/multi_turn_func_doc/trading_bot.json ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/data/multi_turn_func_doc/trading_bot.json c04b85e9ea0795a0fea1e1c3608795aa720edde52539b2e71897aa207976a25f
bfcl_v3/multi_turn_func_doc/travel_booking.json ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/data/multi_turn_func_doc/travel_booking.json 364ca923e25d17b26cb419367f2fd38c9706b440483c14ec3c6b567e21c48ab2
bfcl_v3/multi_turn_func_doc/vehicle_control.json ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/data/multi_turn_func_doc/vehicle_control.json a0366b59ad6eabb10410eadf95aa5991262ad0bbc3f560ebba45d7fc3e4f2808
tau_bench/airline/flights.json sierra-research/tau-bench 59a200c6d575d595120f1cb70fea53cef0632f6b tau_bench/envs/airline/data/flights.json 444d7565c68434a3e3fb72efd717f9f9cd5c56dce227f6f56e078f1cb0ed233a
tau_bench/airline/reservations.json sierra-research/tau-bench 59a200c6d575d595120f1cb70fea53cef0632f6b tau_bench/envs/airline/data/reservations.json 1cf0bbc58ad984be9de7c24dba6dd27393f94cdbd482d8524f6a54db1f561a8c
tau_bench/airline/users.json sierra-research/tau-bench 59a200c6d575d595120f1cb70fea53cef0632f6b tau_bench/envs/airline/data/users.json bd264e2a31e0fa35cdfef8987e70a0dd3776828b582fe90e7a44823a12eb4cea
tau_bench/airline/wiki.md sierra-research/tau-bench 59a200c6d575d595120f1cb70fea53cef0632f6b tau_bench/envs/airline/wiki.md 56c335801c16e26b54f600f9db99eb04d31db477e86eb160341d5c66b796c5c8
tau_bench/retail/orders.json sierra-research/tau-bench 59a200c6d575d595120f1cb70fea53cef0632f6b tau_bench/envs/retail/data/orders.json 2598a12586d28f2d6bd16bc86f4c800029b6af18e0abb5c475ef5c869c11ced1
tau_bench/retail/products.json sierra-research/tau-bench 59a200c6d575d595120f1cb70fea53cef0632f6b tau_bench/envs/retail/data/products.json a9eabcc1a9742c5f5288c2779acce52b9308423383ed24706bbaf0889f762a0f
tau_bench/retail/users.json sierra-research/tau-bench 59a200c6d575d595120f1cb70fea53cef0632f6b tau_bench/envs/retail/data/users.json 6f4fd104cc5e80b92166c4035315c31532c6cea52a90dcdf18425ee7f87c2b82
tau_bench/retail/wiki.md sierra-research/tau-bench 59a200c6d575d595120f1cb70fea53cef0632f6b tau_bench/envs/retail/wiki.md d539fd2a46a8b8dd2e934ff9ed92f43e9f6b56bc7a718db8d2803ba8ad8f6bf7
"

# The BFCL v3 reference environments' sources (Apache-2.0), input of
# `artist derive bfcl`; DEST relative to a scratch folder.
BFCL_SOURCE_FILES="
gorilla_file_system.py ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/eval_checker/multi_turn_eval/func_source_code/gorilla_file_system.py f5a9dc073fdaa13a119244342c145d3da035a165718c1941ce68b1a08be671a3
vehicle_control.py ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/eval_checker/multi_turn_eval/func_source_code/vehicle_control.py cfea31423d9ca954d9688aec1aedc91ad6e11eb0ba20f5b7c918df27515d9455
travel_booking.py ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/eval_checker/multi_turn_eval/func_source_code/travel_booking.py 2f020681b8ad4d6ad605c5d5dc81107f2aabed82219dcdaf016e5bd4753c4c7f
trading_bot.py ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/eval_checker/multi_turn_eval/func_source_code/trading_bot.py 69cd9b56229aedc251fbac507f84b70b9241ba2f3a96a19fab71b467c26bf07f
message_api.py ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/eval_checker/multi_turn_eval/func_source_code/message_api.py ff65c20ac7af5bf5f13048805b7a50fcf0a82eeb5922605b9343a022737f88cd
posting_api.py ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/eval_checker/multi_turn_eval/func_source_code/posting_api.py 6436d6ba622acb3a3e425fc9f97992af2278d1819f743350a1326ed6e9b8af58
ticket_api.py ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/eval_checker/multi_turn_eval/func_source_code/ticket_api.py 3d74510e1ea1dd8e677fcc85457da7c7f4b38eae71a199b6bb48f32681ffc483
math_api.py ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/eval_checker/multi_turn_eval/func_source_code/math_api.py abde32cc25e71b2ff3acf4d028a3c005b98409c174aba4abddbfe1c018afb9a8
long_context.py ShishirPatil/gorilla cd9429ccf3d4d04156affe883c495b3b047e6b64 berkeley-function-call-leaderboard/bfcl_eval/eval_checker/multi_turn_eval/func_source_code/long_context.py 5c9a5710115609c779e5b2ccb43f6ad58271ed96f2ea7a797edb0d65c385aa38
"

# tau-bench's task and rules modules (MIT), input of `artist derive
# taubench`, which writes tasks_<split>.json and rules.json beside the
# databases; DEST relative to the tau_bench folder's source/.
TAU_BENCH_SOURCE_FILES="
airline/rules.py sierra-research/tau-bench 59a200c6d575d595120f1cb70fea53cef0632f6b tau_bench/envs/airline/rules.py da3d5a5db6ddbf3d0071e5ece8d9297ccf89914ded93c8187043c5eecf58adfc
airline/tasks_test.py sierra-research/tau-bench 59a200c6d575d595120f1cb70fea53cef0632f6b tau_bench/envs/airline/tasks_test.py 14cdb6b4fe810faac9a0cc8395d3c7b32c883a979d1cde8c8003ae25a93d2ff3
retail/rules.py sierra-research/tau-bench 59a200c6d575d595120f1cb70fea53cef0632f6b tau_bench/envs/retail/rules.py f4450639d5a21713953685e0a430b8cfd4f359db3fdd4de45ff228449b05c812
retail/tasks_dev.py sierra-research/tau-bench 59a200c6d575d595120f1cb70fea53cef0632f6b tau_bench/envs/retail/tasks_dev.py 87dfe578d0271e7b0b5dfb40621a5c0dcc0e8452a75b8f3f8d1dcf0abac4ff14
retail/tasks_test.py sierra-research/tau-bench 59a200c6d575d595120f1cb70fea53cef0632f6b tau_bench/envs/retail/tasks_test.py 6f09468923c6cfb6162e94fe659264d6aee70816c18d51278fb4a581db7765a4
retail/tasks_train.py sierra-research/tau-bench 59a200c6d575d595120f1cb70fea53cef0632f6b tau_bench/envs/retail/tasks_train.py 30880ce4e8d524dd0fdd18c1d3a5713551fc8638e82673de3e0fd1ab70046c6f
"

# matharena's AIME 2025 problems and answers (MIT), input of
# `artist derive aime25`; DEST relative to a scratch folder.
AIME25_SOURCE_FILES="
aime_2025_I/answers.csv eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_I/answers.csv d25db8d3050ab6aa5437fdc77e243d5efcfff4add23b55f44f3942e93d59fd31
aime_2025_I/problems/1.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_I/problems/1.tex 26a263ad81138dbfb41647a1e55af77c0b8ab02d4b051fc23722a7f0c403535d
aime_2025_I/problems/2.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_I/problems/2.tex 3f55fba10d99fd167d58e8b8497cfc04d69f37aa54ca942276608ea69ff7e5cc
aime_2025_I/problems/3.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_I/problems/3.tex 58fe37dacfbee8e6f8e9e090778365b2f4acdf05c8d74c6373b727ea90cf766e
aime_2025_I/problems/4.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_I/problems/4.tex 348fa6beaf77fee3986117dbe82bd4d0a45560898f056da72bf166dcbf6364c5
aime_2025_I/problems/5.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_I/problems/5.tex 20a4b9569c0c5a6f21720f0ee4c84dd26e2d146c11200eb3ea0274b1cc70264d
aime_2025_I/problems/6.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_I/problems/6.tex f862f0368b2ad1a8459a02663dad9474cb8d907be3263542ca5b39b0154eba39
aime_2025_I/problems/7.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_I/problems/7.tex e5391454ee1ae2dba04ebe27493b09e17d0681305dea39eab9ef7da22434c818
aime_2025_I/problems/8.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_I/problems/8.tex 0412b80ad1a49c53292d0612113f1d9310762a39159d3e1a87c8722b0e4ef0bf
aime_2025_I/problems/9.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_I/problems/9.tex 066aabf25bd4fb22cb62dcb9c8193e15d89d2319125cf50dd08fdf7b7057190d
aime_2025_I/problems/10.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_I/problems/10.tex 7e76250549ad86d0db64a501d47ddd85df4274833e2241ab875bfad847d292ad
aime_2025_I/problems/11.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_I/problems/11.tex 5218a0e717b22dddeef8cce9d3d1d1051a5030902d52ab4ca9f2cc79037ec444
aime_2025_I/problems/12.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_I/problems/12.tex 9df369a8ad5157c8960a7aeae493810098269864c996d06a3c5854cb1d0bdabf
aime_2025_I/problems/13.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_I/problems/13.tex c4257795097d17aed1521c5eb5353f09981a5f92549338c6358f33d8c49fae22
aime_2025_I/problems/14.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_I/problems/14.tex a3bcb4f0a11d25cf3f9d7d052647274a553a9052a49c83ab013e5c8617bb96e5
aime_2025_I/problems/15.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_I/problems/15.tex e41ea154b2eaaa8b272e4bf4207608466807527a9d707886121ad98a9ce3a90f
aime_2025_II/answers.csv eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_II/answers.csv d4ae1f788fff90fe89d8d433e08045f865ab2c3f61200f1e8a418e29a1054caf
aime_2025_II/problems/1.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_II/problems/1.tex c9f868cddbefd2798885d302901cb8344676642840c391ed9635224c73376e57
aime_2025_II/problems/2.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_II/problems/2.tex 5456f4190495febfb1f94a7d2d888184560c0d311d09f9ba8df0213172a769b7
aime_2025_II/problems/3.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_II/problems/3.tex 4e99fa9b8c42a5b73d3b86e10e8cca6ab929fc054cefa02a1c78f18417172064
aime_2025_II/problems/4.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_II/problems/4.tex 9dc773c6ff4f68277eb1864c30d88758ad472718747033bed75a284a1a8f76a9
aime_2025_II/problems/5.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_II/problems/5.tex f61e610fb78079a93cc0b1b91feded563ba8e445e6933acf74d20945af951986
aime_2025_II/problems/6.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_II/problems/6.tex 968c36665d072e238b091a67bd67b91fd5e581219feffd1da56ee7fff4ff43b5
aime_2025_II/problems/7.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_II/problems/7.tex cf1d5f761ce5942a44355ce05b1e490f24b35819a1402366dae26f95c1c8474f
aime_2025_II/problems/8.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_II/problems/8.tex 459c0b9eb4ccdcbf64baa1a70cba19869d652a1999966f43284c9c97c0d04b6b
aime_2025_II/problems/9.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_II/problems/9.tex 3e8f6b46d3c48cf5d4b407d971e725608a18f835cb96e96156299f5096abaf8a
aime_2025_II/problems/10.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_II/problems/10.tex a2999ecfa8f9a767855b7b43e2968173df904b4759e6510f5093ec701e028674
aime_2025_II/problems/11.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_II/problems/11.tex 1d6318c3bffdd04aff2f9503b43f64eb63367f40b8c2117575ac7890f3ed4c8e
aime_2025_II/problems/12.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_II/problems/12.tex d3e05e3bf85696649fe4030478871ffa8e8b8805b6d47421f2bffecd7a085e4e
aime_2025_II/problems/13.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_II/problems/13.tex de56c94a8e485ecafd89d9dc1b40a677a3fc4999d9a36101a661e03a71214572
aime_2025_II/problems/14.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_II/problems/14.tex 3b18835d3533ad5dedfe647d97bc40f92ad93ab28148c37bd8fc787c33d35df6
aime_2025_II/problems/15.tex eth-sri/matharena 81f103e38b1df076afa65ee0a3ffbe148d42e6d2 data/aime/aime_2025_II/problems/15.tex f0eb22e114cdf88937bb21794102e0e980cbcf54fb332df22c402b06307f26c2
"

# sha256_of FILE prints the file's sha256 in hex.
sha256_of() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	else
		shasum -a 256 "$1" | cut -d' ' -f1
	fi
}

# fetch_verified REPOSITORY COMMIT PATH SHA256 DEST downloads one file to a
# temporary name next to DEST, checks its sha256 and moves it into place.
# A DEST that already has the right sha256 is kept. On any failure DEST is
# left as it was and the function returns 1 after naming the file.
fetch_verified() {
	local repo=$1 commit=$2 path=$3 want=$4 dest=$5
	local url="$ARTIST_FETCH_BASE/$repo/$commit/$path"
	if [ -f "$dest" ] && [ "$(sha256_of "$dest")" = "$want" ]; then
		echo "ok       $dest"
		return 0
	fi
	mkdir -p "$(dirname "$dest")" || return 1
	local tmp="$dest.part.$$"
	echo "fetching $dest"
	if ! curl -fsSL --retry 3 -o "$tmp" "$url"; then
		rm -f "$tmp"
		echo "error: could not download $dest from $url" >&2
		return 1
	fi
	local got
	got=$(sha256_of "$tmp")
	if [ "$got" != "$want" ]; then
		rm -f "$tmp"
		echo "error: sha256 mismatch for $dest (from $url): got $got, want $want" >&2
		return 1
	fi
	mv -f "$tmp" "$dest"
}

# fetch_list LIST DIR fetches every file of LIST (one of the lists above)
# into DIR, stopping at the first failure.
fetch_list() {
	local dest repo commit path sha
	while read -r dest repo commit path sha; do
		[ -n "$dest" ] || continue
		fetch_verified "$repo" "$commit" "$path" "$sha" "$2/$dest" </dev/null || return 1
	done <<<"$1"
}

# run_artist runs the artist command: $ARTIST_BIN when set, else
# `go run ./cmd/artist` in the module root.
run_artist() {
	if [ -n "${ARTIST_BIN:-}" ]; then
		"$ARTIST_BIN" "$@"
	else
		(cd "$ARTIST_ROOT" && go run ./cmd/artist "$@")
	fi
}
