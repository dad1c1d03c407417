/**
 * CommandRisk at its edges, called directly: which command words can lose
 * the machine, the home directory or the workspace (and the words that look
 * close but cannot), which arguments name a path outside the workspace, and
 * the forms `acceptEdits` and globs are allowed in. Each row is a promise
 * the engine relies on: a miss here is a destructive line run unasked, or
 * an outside path read without a question.
 */
import { assert, describe, it } from "@effect/vitest"
import * as CommandRisk from "../src/CommandRisk.js"

const location: CommandRisk.Location = { workspaceRoot: "/work/app", homeDirectory: "/home/dev" }
const w = (line: string) => line.split(" ")
const destructive = (line: string, where: CommandRisk.Location = location) => CommandRisk.destructive(w(line), where)

describe("CommandRisk at its edges", () => {
  it("rm: what it removes, said exactly, and what is an ordinary removal", () => {
    const table: ReadonlyArray<readonly [string, string | undefined]> = [
      ["rm -rf /", "it removes / recursively"],
      ["rm -R /etc", "it removes /etc recursively"],
      ["rm --recursive /usr", "it removes /usr recursively"],
      ["rm --rec /usr", "it removes /usr recursively"],
      // getopt_long's abbreviations: as short as each option stays unambiguous.
      ["rm --r /usr", "it removes /usr recursively"],
      ["rm --no /x", "it removes / (--no-preserve-root)"],
      ["rm --n /x", undefined],
      ["rm -f /etc", "it removes /etc"],
      ["rm /tmp/x", undefined],
      ["rm -r /tmp/x", undefined],
      ["rm -r /var/tmp/x", undefined],
      ["rm -r /tmpx/y", "it removes /tmpx/y recursively"],
      ["rm -r /work/app/build", undefined],
      ["rm -r build", undefined],
      ["rm -r /work/app", "it removes /work/app recursively"],
      ["rm -r /work", "it removes /work recursively"],
      ["rm -r /work/apps", "it removes /work/apps recursively"],
      ["rm -r .", "it removes . recursively"],
      ["rm -r ..", "it removes .. recursively"],
      ["rm -r ~", "it removes ~ recursively"],
      ["rm -r ~/", "it removes ~/ recursively"],
      ["rm -r $HOME", "it removes $HOME recursively"],
      ["rm -r ${HOME}", "it removes ${HOME} recursively"],
      ["rm -r /home/dev", "it removes /home/dev recursively"],
      ["rm -r ~/notes", "it removes ~/notes recursively"],
      // Not knowing whether ~/notes is the home itself, the second check takes it as vital.
      ["rm ~/notes", "it removes ~/notes"],
      ["rm -r /opt/*", "it removes /opt/* recursively"],
      ["rm /opt/*", "it removes /opt/*"],
      ["rm /work/app/*", "it removes /work/app/*"],
      // Flags are read from every word, so a file named -r after -- counts too: the safe reading.
      ["rm -- -r /etc", "it removes /etc recursively"],
      ["rm -v /etc/hosts", undefined],
      ["rmdir /etc", "it removes /etc"],
      ["/bin/rm -rf /", "it removes / recursively"]
    ]
    for (const [line, expected] of table) assert.strictEqual(destructive(line), expected, line)
  })

  it("rm without a known home or workspace: the vital names alone, and ~ always", () => {
    assert.strictEqual(destructive("rm -r ~/x", { workspaceRoot: "/w" }), "it removes ~/x recursively")
    assert.strictEqual(CommandRisk.destructive(w("rm -r /etc")), "it removes /etc recursively")
    assert.isUndefined(CommandRisk.destructive(w("rm -r relative")))
    assert.isUndefined(CommandRisk.destructive(w("rm -r /somewhere/else")))
    // A workspace at the root: everything is inside it, and the root is still vital.
    assert.isUndefined(destructive("rm -r /data/x", { workspaceRoot: "/" }))
    assert.strictEqual(destructive("rm -r /", { workspaceRoot: "/" }), "it removes / recursively")
    // The home directory as the workspace's sibling is outside; as its parent it holds it.
    assert.strictEqual(
      destructive("rm -r /home/dev", { workspaceRoot: "/home/dev/app", homeDirectory: "/home/dev" }),
      "it removes /home/dev recursively"
    )
  })

  it("targets whose value the words do not tell count as vital for a recursive operation only", () => {
    const table: ReadonlyArray<readonly [string, string | undefined]> = [
      ["rm -rf $X", "it removes $X recursively"],
      // The Steam installer's line: with STEAMROOT empty it is rm -rf /*.
      ["rm -rf $STEAMROOT/*", "it removes $STEAMROOT/* recursively"],
      ["rm $STEAMROOT/*", "it removes $STEAMROOT/*"],
      ["rm -rf ${DIR}/", "it removes ${DIR}/ recursively"],
      ["rm -rf build/$X", "it removes build/$X recursively"],
      ["rm -rf $(pwd)", "it removes $(pwd) recursively"],
      ["rm -rf `pwd`", "it removes `pwd` recursively"],
      ["rm -rf $1", "it removes $1 recursively"],
      ["rm -rf $@", "it removes $@ recursively"],
      ["rm -rf ${HOME:+/etc}", "it removes ${HOME:+/etc} recursively"],
      ["rm -rf $HOMEDIR", "it removes $HOMEDIR recursively"],
      ["rm -rf ~/$X", "it removes ~/$X recursively"],
      ["rm $X", undefined],
      // As rm ~/notes: without a known home for the name-only check, ~/… may be the home.
      ["rm ~/$X", "it removes ~/$X"],
      ["rm -rf build$", undefined],
      ["rm -rf a$%b", undefined],
      // OLDPWD and the directory stack: wherever the line was before.
      ["rm -rf ~-", "it removes ~- recursively"],
      ["rm -rf ~-/x", "it removes ~-/x recursively"],
      ["rm -rf ~2", "it removes ~2 recursively"],
      ["rm -rf ~+2", "it removes ~+2 recursively"],
      ["rm ~-", undefined],
      // Another user's home is a home: /root is a system directory.
      ["rm -rf ~root", "it removes ~root recursively"],
      ["rm ~root", "it removes ~root"],
      ["rm -rf ~www-data/x", "it removes ~www-data/x recursively"],
      ["rm ~www-data/x", undefined],
      ["chmod -R 777 $X", "it changes ownership or modes of $X recursively"],
      ["find $X -delete", "it deletes or runs a command on everything under a vital directory"],
      ["mv $X /tmp/x", undefined],
      // $PWD and ~+ are the working directory, $HOME and its set-value forms the home.
      ["rm -rf $PWD", "it removes $PWD recursively"],
      ["rm -rf ${PWD}", "it removes ${PWD} recursively"],
      ["rm -rf ~+", "it removes ~+ recursively"],
      ["rm -rf ~+/", "it removes ~+/ recursively"],
      ["rm -rf ~+/..", "it removes ~+/.. recursively"],
      ["rm -rf ~+/build", undefined],
      ["rm -rf $PWD/build", undefined],
      ["rm -rf ${PWD}/build", undefined],
      ["rm -rf $PWDX", "it removes $PWDX recursively"],
      ["rm -rf build/$PWD", "it removes build/$PWD recursively"],
      ["rm -rf build/~root", undefined],
      ["rm -rf build~", undefined],
      ["rm x~root", undefined],
      ["rm ~www-data", "it removes ~www-data"],
      ["rm ~_x.y-z", "it removes ~_x.y-z"],
      ["rm ~-x", undefined],
      ["mv ~/$X /tmp/x", undefined],
      ["rm -rf ${HOME:-/x}", "it removes ${HOME:-/x} recursively"],
      ["rm -rf ${HOME-x}", "it removes ${HOME-x} recursively"],
      ["rm -rf ${HOME:=x}", "it removes ${HOME:=x} recursively"],
      ["rm -rf ${HOME?x}", "it removes ${HOME?x} recursively"],
      ["rm -rf $HOME/", "it removes $HOME/ recursively"],
      ["rm -rf $HOME/x", "it removes $HOME/x recursively"],
      // A repository's history, wherever the repository is; not a file of that name, nor what is beside it.
      ["rm -rf .git", "it removes .git recursively"],
      ["rm -r ./.git/", "it removes ./.git/ recursively"],
      ["rm -rf vendor/lib/.git", "it removes vendor/lib/.git recursively"],
      ["rm .git", undefined],
      ["rm -rf .github", undefined],
      ["rm -rf .git/hooks", undefined]
    ]
    for (const [line, expected] of table) assert.strictEqual(destructive(line), expected, line)
    // What mktemp just made is no loss, nor what lies below it; its parent is unknown.
    const made: ReadonlyArray<readonly [string, boolean]> = [
      ["$(mktemp -d)", false],
      ["`mktemp -d`", false],
      ["$(mktemp)", false],
      ["$(mktemp -d -t x.XXXX)", false],
      ["$(mktemp -d)/x/y", false],
      ["$(mktemp -d)/..", true],
      ["$(mktemp -d)/x/../..", true],
      ["$(mktemp -d)x", true],
      ["$(mktemp -d;echo /)", true],
      ["$(mktemp $(echo /))", true],
      ["$(mktempx)", true],
      ["x$(mktemp)", true]
    ]
    for (const [word, vital] of made) {
      assert.strictEqual(
        CommandRisk.destructive(["rm", "-rf", word], location),
        vital ? `it removes ${word} recursively` : undefined,
        word
      )
    }
    // The home's own forms stay inside a workspace that lies under the home.
    const underHome: CommandRisk.Location = { workspaceRoot: "/home/dev", homeDirectory: "/home/dev" }
    for (
      const word of [
        "$HOME/build",
        "${HOME}/build",
        "${HOME:-/x}/build",
        "${HOME-x}/build",
        "${HOME=x}/build",
        "${HOME:?x}/build",
        "${HOME?x}/build",
        "~/build",
        "./build",
        "~+/build",
        "$PWD/build"
      ]
    ) {
      assert.isUndefined(destructive(`rm -rf ${word}`, { ...underHome, workspaceRoot: "/home/dev" }), word)
    }
    assert.strictEqual(destructive("rm -rf $HOME", underHome), "it removes $HOME recursively")
    assert.strictEqual(destructive("rm -rf ~/$X", underHome), "it removes ~/$X recursively")
    // ~/x is the home's x, not a directory named ~ inside it.
    const appUnderHome: CommandRisk.Location = { workspaceRoot: "/home/dev/app", homeDirectory: "/home/dev" }
    assert.isUndefined(destructive("rm -rf ~/app/build", appUnderHome))
    assert.strictEqual(destructive("rm -rf ~/other", appUnderHome), "it removes ~/other recursively")
    assert.strictEqual(CommandRisk.destructive(w("rm -r .")), "it removes . recursively")
    assert.strictEqual(CommandRisk.destructive(w("rm -r ..")), "it removes .. recursively")
    assert.strictEqual(destructive("rm -rf ${HOME:+x}/build", underHome), "it removes ${HOME:+x}/build recursively")
  })

  it("relative targets resolve from the directory the command runs in", () => {
    const from = (cwd: string): CommandRisk.Location => ({ ...location, cwd })
    const table: ReadonlyArray<readonly [string, string, string | undefined]> = [
      ["/", "rm -rf usr", "it removes usr recursively"],
      ["/", "rm -rf x", "it removes x recursively"],
      ["/work", "rm -rf app", "it removes app recursively"],
      ["/work", "rm -rf other", "it removes other recursively"],
      ["/home", "chmod -R 777 dev", "it changes ownership or modes of dev recursively"],
      ["/work", "find app -delete", "it deletes or runs a command on everything under a vital directory"],
      ["/work", "mv app /tmp/x", "it moves a system directory, the home directory or the workspace away"],
      ["/", "mv etc /tmp/x", "it moves a system directory, the home directory or the workspace away"],
      ["/tmp", "rm -rf x", undefined],
      ["/work/app/src", "rm -rf build", undefined],
      ["/work/app/src", "rm -rf ..", "it removes .. recursively"],
      ["/work/app/src", "rm -rf ../lib", undefined],
      ["/work/app/src", "rm -rf ../../x", "it removes ../../x recursively"],
      ["/work/app/src", "rm -rf ~+/../lib", undefined],
      ["/", "rm -rf ~+/usr", "it removes ~+/usr recursively"],
      ["/", "rm -rf $PWD/etc", "it removes $PWD/etc recursively"]
    ]
    for (const [cwd, line, expected] of table) {
      assert.strictEqual(destructive(line, from(cwd)), expected, `${cwd}: ${line}`)
    }
  })

  it("mv: the vital names, resolved; a path outside the workspace moved is no loss", () => {
    const moved = "it moves a system directory, the home directory or the workspace away"
    const table: ReadonlyArray<readonly [string, string | undefined]> = [
      ["mv /work/app /tmp/x", moved],
      ["mv /work /tmp/x", moved],
      ["mv /work/app/ /tmp/x", moved],
      ["mv /home/dev /tmp/x", moved],
      ["mv ~root /tmp/x", moved],
      ["mv $HOME /tmp/x", moved],
      ["mv ~+ /tmp/x", moved],
      ["mv /opt/x /tmp/x", undefined],
      ["mv /work/app/src /tmp/x", undefined],
      ["mv /work/apps /tmp/x", undefined],
      ["mv build /tmp/x", undefined],
      ["mv ~/notes /tmp/x", undefined],
      ["mv /tmp/a /etc", undefined],
      // With a target directory given, every other operand is a source.
      ["mv -t /tmp /work/app", moved],
      ["mv -t /tmp a /home/dev", moved],
      ["mv --target-directory /tmp ~", moved],
      ["mv --target-directory=/tmp ~", moved],
      ["mv -t/tmp ~", moved],
      ["mv -t /tmp a b", undefined],
      ["mv -t / a", undefined],
      ["mv -T a /work/app", undefined],
      // A -t inside a name is no target-directory option: into the workspace is no move away.
      ["mv my-tmp /work/app", undefined]
    ]
    for (const [line, expected] of table) assert.strictEqual(destructive(line), expected, line)
    // Without a known workspace, only the system's directories and the home.
    assert.isUndefined(CommandRisk.destructive(w("mv /work/app /tmp/x")))
    assert.strictEqual(CommandRisk.destructive(w("mv /etc /tmp/x")), moved)
  })

  it("operands, quotes and widening globs around a target", () => {
    const table: ReadonlyArray<readonly [string, string | undefined]> = [
      // After --, a word starting with - is an operand, and this one climbs out of the workspace.
      ["rm -r -- -x/../..", "it removes -x/../.. recursively"],
      // A word after -- that only looks like options is a file: -r.txt makes nothing recursive.
      ["rm -f -- -r.txt /opt/x", undefined],
      // . and .. are the workspace and what holds it, recursive or not.
      ["rm .", "it removes ."],
      ["rm ..", "it removes .."],
      // A quote inside a word is part of the name: /e"tc is not /etc.
      ["rm /e\"tc", undefined],
      ["rm /e'tc", undefined],
      // A bare * stands for the workspace; */../x is one of its own files.
      ["rm -r */../build", undefined],
      ["rm -r -x/../..", undefined],
      // The command's own path is no operand.
      ["/bin/rm -r build", undefined],
      ["/work/tools/rm -r build", undefined],
      // Globs and slashes that only widen the target are stripped before it is judged.
      ["rm -r /work/app/**", "it removes /work/app/** recursively"],
      ["rm -r /work/app/*/", "it removes /work/app/*/ recursively"],
      ["rm -r /work/app//", "it removes /work/app// recursively"],
      ["rm -r *", "it removes * recursively"],
      ["rm -r **/", "it removes **/ recursively"],
      ["rm -r /work/app/*.log", undefined],
      ["rm -r /work/app/src/*", undefined],
      ["rm -r x*", undefined],
      ["rm -r .*", undefined],
      // Quotes a word kept are no part of the path.
      ["rm \"/etc\"", "it removes \"/etc\""],
      ["rm '/usr'", "it removes '/usr'"],
      ["rm '/usr", "it removes '/usr"],
      ["rm /usr'", "it removes /usr'"],
      ["rm -r '/work/app/build'", undefined],
      ["rm -r \"~\"", "it removes \"~\" recursively"]
    ]
    for (const [line, expected] of table) assert.strictEqual(destructive(line), expected, line)
    // The root, however written, with no location known.
    for (const word of ["/", "//", "/*", "/.", "'/'"]) {
      assert.strictEqual(CommandRisk.destructive(["rm", "-rf", word]), `it removes ${word} recursively`, word)
    }
    assert.isUndefined(CommandRisk.destructive(["rm", "-rf", ""]))
    assert.isUndefined(CommandRisk.destructive(["rm", "-rf", ""], location))
    assert.strictEqual(destructive("xargs -r rm -f"), undefined)
    assert.strictEqual(destructive("xargs grep x -r"), undefined)
    assert.strictEqual(destructive("xargs -0 -r rm -r"), "it removes what it reads, recursively")
    for (const name of ["xmkfs", "mkfsck", "xmke2fs", "mke2fsx", "xmkswap", "mkswapx", "mkfs.", "mkfs.ext4x"]) {
      assert.strictEqual(
        destructive(`${name} /dev/sda`),
        name === "mkfs.ext4x" ? "it formats a device" : undefined,
        name
      )
    }
  })

  it("chmod, chown, chgrp: only recursive, only on a vital target, a mode is not a target", () => {
    const table: ReadonlyArray<readonly [string, string | undefined]> = [
      ["chmod -R 777 /", "it changes ownership or modes of / recursively"],
      ["chmod --recursive 777 /etc", "it changes ownership or modes of /etc recursively"],
      ["chmod --recu 777 /etc", "it changes ownership or modes of /etc recursively"],
      ["chmod --re 777 /etc", "it changes ownership or modes of /etc recursively"],
      ["chmod --r 777 /etc", undefined],
      ["chmod 777 /etc", undefined],
      ["chmod -r 777 /etc", undefined],
      ["chown -R dev /home/dev", "it changes ownership or modes of /home/dev recursively"],
      ["chgrp -R staff /usr", "it changes ownership or modes of /usr recursively"],
      ["chmod -R u+x build", undefined],
      ["chmod -R 0755 build", undefined],
      ["chmod -R go-w /work/app/src", undefined],
      // The first operand is the mode or the owner, whatever it looks like.
      ["chown -R $USER build", undefined],
      ["chown -R $(id -u):staff build", undefined],
      ["chmod -R $MODE build", undefined],
      // A file whose name holds -x is no mode given as an option.
      ["chmod -R $MODE my-x", undefined],
      ["chmod -R .. build", undefined],
      ["chmod -R 755 ..", "it changes ownership or modes of .. recursively"],
      // A mode that reads as an option leaves every operand a file.
      ["chmod -R -x /", "it changes ownership or modes of / recursively"],
      ["chmod -R -wx /etc", "it changes ownership or modes of /etc recursively"],
      ["chmod -R -w,o-x /", "it changes ownership or modes of / recursively"],
      ["chmod -R -x,g=u ~", "it changes ownership or modes of ~ recursively"],
      ["chmod -R -- 755 /", "it changes ownership or modes of / recursively"],
      ["chmod -R -X build", undefined],
      ["chown -R --reference=x ~", "it changes ownership or modes of ~ recursively"],
      ["chmod -R --reference=x /usr", "it changes ownership or modes of /usr recursively"],
      ["chown -R ~ build", undefined]
    ]
    for (const [line, expected] of table) assert.strictEqual(destructive(line), expected, line)
  })

  it("find: acting options over a vital start, or none given", () => {
    const hit = "it deletes or runs a command on everything under a vital directory"
    const table: ReadonlyArray<readonly [string, string | undefined]> = [
      ["find / -delete", hit],
      ["find -delete", hit],
      ["find -name x -delete", hit],
      ["find ~ -exec rm {} ;", hit],
      ["find / -execdir x", hit],
      ["find / -ok rm", hit],
      ["find / -okdir rm", hit],
      ["find /work/app/build -delete", undefined],
      ["find / -name x", undefined],
      ["find / -deleted", undefined],
      ["find build ( -name x ) -delete", undefined],
      ["find build ! -name x -delete", undefined],
      ["find build /etc -delete", hit],
      ["find / -name x-delete", undefined],
      ["find / -name x-exec", undefined],
      // A dash inside a starting point is part of its name.
      ["find my-dir -delete", undefined],
      ["find my(dir -delete", undefined]
    ]
    for (const [line, expected] of table) assert.strictEqual(destructive(line), expected, line)
  })

  it("mv, dd, device writers, kill, xargs, power and formatting", () => {
    const table: ReadonlyArray<readonly [string, string | undefined]> = [
      ["mv /etc /tmp/etc", "it moves a system directory, the home directory or the workspace away"],
      ["mv /usr/ /tmp/x", "it moves a system directory, the home directory or the workspace away"],
      ["mv ~ /tmp/x", "it moves a system directory, the home directory or the workspace away"],
      ["mv . /tmp/x", "it moves a system directory, the home directory or the workspace away"],
      ["mv a /etc", undefined],
      ["mv a /etc /tmp/x", "it moves a system directory, the home directory or the workspace away"],
      ["mv /etc/hosts /tmp/x", undefined],
      ["dd if=x of=/dev/sda", "it writes to a device"],
      ["dd if=x of=//dev//sda", "it writes to a device"],
      ["dd if=x of=/dev/null", undefined],
      ["dd if=/dev/sda of=x", undefined],
      ["cp x /dev/sda", "it writes to or erases a device"],
      ["tee /dev/nvme0n1", "it writes to or erases a device"],
      ["shred /dev/sdb", "it writes to or erases a device"],
      ["wipefs /dev/sdb", "it writes to or erases a device"],
      ["blkdiscard /dev/sdb", "it writes to or erases a device"],
      ["truncate -s 0 /dev/sda", "it writes to or erases a device"],
      ["truncate -s 0 build.log", undefined],
      ["rsync -a --delete empty/ /", "it deletes from / what its source lacks"],
      ["rsync -a --del x/ ~/", "it deletes from ~/ what its source lacks"],
      ["rsync -a --delete-after x/ /work/app", "it deletes from /work/app what its source lacks"],
      ["rsync -a --delete-excluded x/ $DEST", "it deletes from $DEST what its source lacks"],
      ["rsync -a --delete x/ /work/app/out", undefined],
      ["rsync -a --delete x/ /tmp/out", undefined],
      ["rsync -a --delete x/ host:/", undefined],
      ["rsync -a --delete /", undefined],
      ["rsync -a x/ /", undefined],
      ["rsync -a --deletex x/ /", undefined],
      // An option's value after the operands is no destination; the destination before it still is.
      ["rsync -a --delete /tmp/e/ ~ --exclude .git", "it deletes from ~ what its source lacks"],
      ["rsync -a --delete / out", undefined],
      ["rsync -a x--delete /", undefined],
      // A colon after a slash is part of a local path; before any slash it names a host.
      ["rsync -a --delete x/ /opt/a:b", "it deletes from /opt/a:b what its source lacks"],
      ["rsync -a --delete x/ host:/..", undefined],
      ["tee /dev/stdout", undefined],
      ["tee /dev/fd/1", undefined],
      ["tee /dev/shm/x", undefined],
      ["tee /dev/tty", undefined],
      ["cp /dev/zero x", undefined],
      ["kill -9 -1", "it signals every process"],
      ["pkill -9 -1", "it signals every process"],
      ["kill -1", undefined],
      ["kill -9 1", undefined],
      ["xargs rm -rf", "it removes what it reads, recursively"],
      ["xargs -0 /bin/rm -R", "it removes what it reads, recursively"],
      ["xargs rm -f", undefined],
      ["xargs -r echo", undefined],
      ["shutdown now", "it stops the machine"],
      ["reboot", "it stops the machine"],
      ["halt", "it stops the machine"],
      ["poweroff", "it stops the machine"],
      ["mkfs /dev/sda", "it formats a device"],
      ["mkfs.ext4 /dev/sda", "it formats a device"],
      ["mke2fs /dev/sda", "it formats a device"],
      ["mkswap /dev/sda", "it formats a device"],
      ["mkdosfs /dev/sda", "it formats a device"],
      ["mkntfs /dev/sda", "it formats a device"],
      ["mkexfatfs /dev/sda", "it formats a device"],
      ["mkfsx /dev/sda", undefined],
      ["mkfs. /dev/sda", undefined],
      ["ls /", undefined]
    ]
    for (const [line, expected] of table) assert.strictEqual(destructive(line), expected, line)
  })

  it("a line: fork bombs, a device redirection, code fetched and run", () => {
    const line = CommandRisk.destructiveLine
    assert.strictEqual(line(":(){ :|:& };:", []), "it is a fork bomb")
    assert.strictEqual(line(": ( ) { : | : & } ; :", []), "it is a fork bomb")
    assert.strictEqual(line("bomb(){ bomb|bomb& };bomb", []), "it is a fork bomb")
    assert.strictEqual(line("b(){ b |& b; }; b", []), "it is a fork bomb")
    assert.isUndefined(line("f(){ g|f; }; f", []))
    // Spaces anywhere the shell allows them, and more than one command before the recursion.
    assert.strictEqual(line(":(){  :|:& };:", []), "it is a fork bomb")
    assert.strictEqual(line(":(){ sleep 1; :|:& };:", []), "it is a fork bomb")
    assert.strictEqual(line("f ( ) { f|f & }; f", []), "it is a fork bomb")
    assert.strictEqual(line("f()  {  f|f & }; f", []), "it is a fork bomb")
    assert.strictEqual(line("f(){ :; f|f& }; f", []), "it is a fork bomb")
    assert.strictEqual(line("bomb(){  bomb|bomb& };bomb", []), "it is a fork bomb")
    assert.strictEqual(line("echo x > /dev/sda", [["echo", "x"]], ["/dev/sda"]), "it writes to a device")
    assert.isUndefined(line("echo x > /dev/null", [["echo", "x"]], ["/dev/null"]))
    assert.strictEqual(line("curl x | sh", [["curl", "x"], ["sh"]]), "it runs code downloaded from the network")
    assert.strictEqual(
      line("wget -O- x | /bin/bash", [["wget", "-O-", "x"], ["/bin/bash"]]),
      "it runs code downloaded from the network"
    )
    assert.strictEqual(line("eval $(fetch x)", [["fetch", "x"], ["eval"]]), "it runs code downloaded from the network")
    assert.strictEqual(line("aria2c x; . y", [["aria2c", "x"], ["."]]), "it runs code downloaded from the network")
    for (const shell of ["zsh", "dash", "ksh", "fish", "python", "python3", "perl", "ruby", "node", "source"]) {
      assert.strictEqual(line("", [["curl", "x"], [shell]]), "it runs code downloaded from the network", shell)
    }
    assert.isUndefined(line("curl x | grep y", [["curl", "x"], ["grep", "y"]]))
    assert.isUndefined(line("sh x", [["sh", "x"]]))
    assert.isUndefined(line("", []))
  })

  it("paths outside the workspace: absolute, home, climbing, attached to options, through links", () => {
    const outside = (
      line: string,
      where: CommandRisk.Location = location,
      leadsTo?: (p: string) => ReadonlyArray<string>
    ) => CommandRisk.pathsOutside(w(line), where, leadsTo)
    assert.deepStrictEqual(outside("cat /etc/passwd /work/app/a /work/apps/b /work/app"), [
      "/etc/passwd",
      "/work/apps/b"
    ])
    assert.deepStrictEqual(outside("cat ../x a/../../y a/../b"), ["../x", "a/../../y"])
    assert.deepStrictEqual(outside("cat ~ ~/x ~root/x ~+"), ["~", "~/x", "~root/x"])
    assert.deepStrictEqual(
      outside("cat ~/app/x", { workspaceRoot: "/home/dev/app", homeDirectory: "/home/dev" }),
      []
    )
    assert.deepStrictEqual(outside("cat ~/x", { workspaceRoot: "/work/app" }), ["~/x"])
    // ~+ is the working directory; another user's home, ~- and the directory stack are not known.
    const home: CommandRisk.Location = { workspaceRoot: "/home/dev", homeDirectory: "/home/dev" }
    assert.deepStrictEqual(outside("cat ~/x ~root/.ssh/id ~-/x ~- ~2/x ~+2/x ~+/x ~+/../x ~+", home), [
      "~root/.ssh/id",
      "~-/x",
      "~-",
      "~2/x",
      "~+2/x",
      "~+/../x"
    ])
    assert.deepStrictEqual(outside("cat ~+/../lib ~+/../../x", { ...location, cwd: "/work/app/src" }), [
      "~+/../../x"
    ])
    assert.deepStrictEqual(outside("grep --file=/etc/x -f/etc/y -C../z -n5 --count=3 x"), [
      "--file=/etc/x",
      "-f/etc/y",
      "-C../z"
    ])
    assert.deepStrictEqual(outside("cat -f./x -a.b"), [])
    // A value attached after several letters; a single-dash option with =; a relative name holding -x=.
    assert.deepStrictEqual(outside("grep -nf/etc/x -f=/etc/y a-b=/etc/z y"), ["-nf/etc/x", "-f=/etc/y"])
    // .. alone climbs; a device name only counts where it stands whole.
    assert.deepStrictEqual(outside("cat .. a/.. /etc/dev/null /dev/fd/10 /dev/nullx"), [
      "..",
      "/etc/dev/null",
      "/dev/fd/10",
      "/dev/nullx"
    ])
    assert.deepStrictEqual(
      outside("cat /dev/null /dev/stdin /dev/stdout /dev/stderr /dev/tty /dev/fd/0 /dev/fd/2 /dev/fd/3"),
      ["/dev/fd/3"]
    )
    // The first word is the command, never a path to check.
    assert.deepStrictEqual(outside("/usr/bin/cat a"), [])
    // From a directory a cd led to, a relative path is resolved there.
    assert.deepStrictEqual(outside("cat ../../x ../y", { ...location, cwd: "/work/app/src" }), ["../../x"])
    assert.deepStrictEqual(outside("cat x", { ...location, cwd: "/tmp" }), ["x"])
    // Through links: a path inside that leads out is outside.
    const leadsTo = (p: string) => (p === "/work/app/link" ? [p, "/etc"] : [p])
    assert.deepStrictEqual(outside("cat link other", location, leadsTo), ["link"])
    // A workspace at the root holds every absolute path.
    assert.deepStrictEqual(outside("cat /etc/x", { workspaceRoot: "/" }), [])
  })

  it("globs only for commands whose every option reads, never a dot glob", () => {
    for (const name of ["ls", "cat", "head", "tail", "wc", "grep", "stat", "du", "diff", "echo", "file"]) {
      assert.isTrue(CommandRisk.takesGlobs([[name, "*.ts"]]), name)
    }
    assert.isFalse(CommandRisk.takesGlobs([["rm", "*.ts"]]))
    assert.isFalse(CommandRisk.takesGlobs([["ls", "x"], ["find", "*"]]))
    assert.isFalse(CommandRisk.takesGlobs([["ls", ".*"]]))
    assert.isFalse(CommandRisk.takesGlobs([["ls", "src/.?"]]))
    assert.isFalse(CommandRisk.takesGlobs([["ls", "src/.[a]"]]))
    assert.isTrue(CommandRisk.takesGlobs([["ls", "src/a.*"]]))
    assert.isFalse(CommandRisk.takesGlobs([[]]))
    assert.isTrue(CommandRisk.takesGlobs([]))
  })

  it("acceptEdits' sed: substitutions only, with flags that print or count", () => {
    const form = (line: string) => CommandRisk.fileCommandForm(w(line))
    assert.isTrue(form("mkdir x"))
    assert.isTrue(form("sed -i s/a/b/g f"))
    assert.isTrue(form("sed -n -E s|a|b|Ip f"))
    assert.isTrue(form("sed --in-place -e s#a#b#2 f"))
    assert.isTrue(form("sed --regexp-extended --quiet --silent s,a\\,b,c, f"))
    assert.isTrue(form("sed -r s:a:b:0 f"))
    assert.isFalse(form("sed s/a/b/w f"))
    assert.isFalse(form("sed s/a/b/e f"))
    assert.isFalse(form("sed 1d f"))
    assert.isFalse(form("sed -f script f"))
    assert.isFalse(form("sed --expression=s/a/b/ f"))
    assert.isFalse(form("sed -i"))
    assert.isFalse(form("sed s/a/b f"))
    assert.isFalse(form("sed s/a/b/g/ f"))
    // Only the first operand is the script; the rest are files.
    assert.isTrue(form("sed s/a/b/ 1d"))
    assert.isTrue(form("sed -ni s/abc/de/gp f"))
    assert.isTrue(form("sed s/a-b/c-d/ f"))
    assert.isTrue(form("sed s/a\\/b/c\\/d/ f"))
    assert.isTrue(form("sed -E -i s/x+/y/2g f"))
    // -nf reads the script from a file, whatever that file is called.
    assert.isFalse(form("sed -nf s/a/b/ f"))
    assert.isFalse(form("sed -i.bak s/a/b/ f"))
    assert.isFalse(form("sed x-i s/a/b/ f"))
    assert.isFalse(form("sed xs/a/b/ f"))
    assert.isFalse(form("sed s/a/b/gw f"))
    assert.isFalse(form("sed s/a/b/;e f"))
    // An option after the script still counts.
    assert.isFalse(form("sed s/a/b/ f --expression=1d"))
    assert.isFalse(form("sed s/a/b/ f -f x"))
    assert.deepStrictEqual(CommandRisk.fileCommandRules, [
      "Bash(mkdir *)",
      "Bash(touch *)",
      "Bash(rm *)",
      "Bash(rmdir *)",
      "Bash(mv *)",
      "Bash(cp *)",
      "Bash(sed *)"
    ])
  })
})
