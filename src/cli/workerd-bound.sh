#!/bin/sh
# workerd, bound to the Node process that starts it: util-linux's setpriv sets PR_SET_PDEATHSIG,
# so the kernel kills workerd when its parent dies, even by kill -9 (issue 33: each catalog:publish
# killed that way left a workerd holding 110-240 MB and the state's SQLite files for minutes).
# src/cli/local-env.ts points Miniflare here (MINIFLARE_WORKERD_PATH) when setpriv exists.
exec setpriv --pdeathsig KILL -- "$STOREFRONT_WORKERD" "$@"
