// A second process for the process tests and the scripts in scripts/: it reads and writes one
// settings set in a `UserDefaults` suite, so that tests can check what crosses process
// boundaries, what survives `kill -9`, and what several writers leave behind.
//
//     AppSettingsTestHost read <suite> <postfix>             JSON: settings, lastLoadError, domain state
//     AppSettingsTestHost state <suite> <postfix>            one line for scripts (see `stateLine`)
//     AppSettingsTestHost write <suite> <postfix> <counter>  one consistent triple, synchronized
//     AppSettingsTestHost write-many <suite> <postfix> <rounds> [first [shared]]
//     AppSettingsTestHost sync-loop <suite> <postfix>        forever; prints each synchronized counter
//     AppSettingsTestHost fields <suite> <postfix>           `counter=<n> label=<s> values=<a,b,…>`
//     AppSettingsTestHost set <suite> <postfix> <setting> <n>   one setting (see `setOne`), synchronized
//     AppSettingsTestHost set-many <suite> <postfix> <setting> <rounds>   the same for 1…rounds
//     AppSettingsTestHost count-loop <suite> <postfix>       forever: counter + 1, synchronized, printed
//     AppSettingsTestHost plain-writer <suite> <postfix> <stop>  as an app's other code writes the suite:
//                                                           `plain.writer` set with `UserDefaults`, then
//                                                           `synchronize()`, until the file <stop> exists;
//                                                           prints `ready` first, `stopped <rounds>` last
//     AppSettingsTestHost watch <suite> <postfix> [reload]   prints `ready`, then `told counter=<n>`
//                                                           each time another writer stored the set
//     AppSettingsTestHost steps <suite> <step>...            several sets and saves in one process,
//                                                           each save between `@@begin`/`@@end` lines
//     AppSettingsTestHost fields-of <suite> <postfix>...     `<postfix> <fields> error=<yes|no>` per set
//     AppSettingsTestHost unavailable <suite> <postfix> <path>...  loads a set whose files cannot be
//                                                           read, changes label, synchronizes, makes
//                                                           <path>s readable (chmod 600), synchronizes:
//                                                           `load <error> <fields>`, `files <sizes and times>`,
//                                                           `save <error>`, `files …`, `then <error> <fields>`
//     AppSettingsTestHost parses - - <path>...               `<path> <yes|no>`: a property-list dictionary?
//     AppSettingsTestHost own-domain <suite> <postfix> <other suite>   sets a key of <other suite>
//                                                           without synchronizing it, then saves,
//                                                           reverts and loads the set in <suite>:
//                                                           `other domain written: <yes|no>`
//     AppSettingsTestHost seed-others <suite> <postfix> <n>  n plain keys of the app's own and a
//                                                           backup of the set's key, synchronized
//     AppSettingsTestHost others <suite> <postfix> <n>       `others=<found>/<n> backups=<found>/1`, read
//                                                           from the domain file as it is on disk
//     AppSettingsTestHost shown-save <suite> - <name> <count>  saves `ShownHostSettings` with that
//                                                           name and count (shown settings beside one
//                                                           that is not), prints `ok`
//     AppSettingsTestHost overrides <suite> <postfix> [assign]  JSON: the `OverrideSettings` as read,
//                                                           each one's source, the ignored overrides and
//                                                           what is stored; `assign` first sets soundLevel
//                                                           and audio.volume and synchronizes
//
// Launch arguments (`-<postfix>.<name> value`) may follow the command's own arguments.
//
// A "consistent triple" is counter = n, label = "v<n>", values = [n, n, n]: a torn or mixed
// state shows as a triple that does not match.

import AppSettings
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    fail(
        "usage: AppSettingsTestHost read|state|write|write-many|sync-loop <suite> <postfix> [number] "
            + "(suite -: UserDefaults.standard)"
    )
}
let command = arguments[1]
let suite = arguments[2]
hostKeyPostfix = arguments[3]
// The suite "-" is `UserDefaults.standard`: the domain of this process, named after it.
guard let userDefaults = suite == "-" ? .standard : UserDefaults(suiteName: suite) else {
    fail("cannot open suite \(suite)")
}

func numberArgument(_ index: Int) -> Int {
    guard arguments.count > index, let value = Int(arguments[index]) else {
        fail("\(command) needs an integer argument")
    }
    return value
}

switch command {
case "read":
    let settings = HostSettings(userDefaults: userDefaults)
    let domain = domainState(of: settings)
    let output: [String: Any] = [
        "key": settings.userDefaultsKey,
        "settings": jsonValue(settings.dictionaryRepresentation()),
        "lastLoadError": settings.lastLoadError.map { "\($0)" } ?? NSNull(),
        "consistent": settings.isConsistent,
        "domain": domain,
        "domainFile": settings.settingsStore.domainFileURL?.path ?? NSNull(),
    ]
    let json = try JSONSerialization.data(withJSONObject: output, options: [.sortedKeys])
    say(String(decoding: json, as: UTF8.self))

case "state":
    // `counter=<n> consistent=<yes|no> domain=<has-key|key-missing|damaged|no-file> error=<yes|no>`
    let settings = HostSettings(userDefaults: userDefaults)
    let domain = domainState(of: settings)
    let consistent = settings.isConsistent ? "yes" : "no"
    let error = settings.lastLoadError == nil ? "no" : "yes"
    say("counter=\(settings.counter) consistent=\(consistent) domain=\(domain) error=\(error)")
    if let lastLoadError = settings.lastLoadError {
        FileHandle.standardError.write(Data("lastLoadError: \(lastLoadError)\n".utf8))
    }

case "write":
    let settings = HostSettings(userDefaults: userDefaults)
    settings.setTriple(numberArgument(4))
    synchronizeOrFail(settings)
    say("ok \(settings.counter)")

case "write-many":
    // Writes the triples first…first+rounds-1, synchronizing after each; a fresh object
    // (a fresh load) every fifth round, so that loads run between other processes' writes too.
    // The reloaded state must be whole, and, unless the set is `shared` with another writer,
    // exactly the one this process synchronized last.
    let rounds = numberArgument(4)
    let first = arguments.count > 5 ? numberArgument(5) : 1
    let shared = arguments.count > 6 && arguments[6] == "shared"
    var settings = HostSettings(userDefaults: userDefaults)
    for round in 0..<rounds {
        if round % 5 == 4 {
            settings = HostSettings(userDefaults: userDefaults)
            if !settings.isConsistent || (!shared && settings.counter != first + round - 1) {
                fail(
                    "round \(round): reloaded an unexpected state: counter \(settings.counter), label \(settings.label)"
                )
            }
        }
        settings.setTriple(first + round)
        synchronizeOrFail(settings, " in round \(round)")
    }
    say("ok \(settings.counter)")

case "sync-loop":
    // Continues from what is stored, so that one suite can be killed over and over and the
    // counter only grows; prints each counter after its synchronization returned.
    let settings = HostSettings(userDefaults: userDefaults)
    if let error = settings.lastLoadError { fail("load failed: \(error)") }
    if !settings.isConsistent { fail("loaded an inconsistent state: \(settings.dictionaryRepresentation())") }
    var next = settings.counter + 1
    while true {
        settings.setTriple(next)
        synchronizeOrFail(settings)
        say("\(next)")
        next += 1
    }

case "shown-save":
    guard arguments.count > 5, let count = Int(arguments[5]) else { fail("shown-save needs a name and a count") }
    let settings = ShownHostSettings(userDefaults: userDefaults)
    settings.name = arguments[4]
    settings.count = count
    do { try settings.synchronizeToUserDefaults() } catch { fail("synchronize failed: \(error)") }
    say("ok")

case "fields":
    say(HostSettings(userDefaults: userDefaults).fieldsLine)

case "set", "set-many":
    // Changes ONE setting and synchronizes, merging with what other writers stored meanwhile;
    // `set-many` does so for 1…rounds, with a fresh object every fifth round.
    guard arguments.count > 5 else { fail("\(command) needs a setting and a number") }
    let setting = arguments[4]
    let last = numberArgument(5)
    var settings = HostSettings(userDefaults: userDefaults)
    for value in (command == "set" ? last...last : 1...last) {
        if value % 5 == 0 { settings = HostSettings(userDefaults: userDefaults) }
        settings.setOne(setting, value)
        synchronizeOrFail(settings)
    }
    say("ok \(settings.fieldsLine)")

case "count-loop":
    // Raises the counter alone, forever, so that the other settings are another writer's.
    let settings = HostSettings(userDefaults: userDefaults)
    if let error = settings.lastLoadError { fail("load failed: \(error)") }
    while true {
        settings.counter += 1
        synchronizeOrFail(settings)
        say("\(settings.counter)")
    }

case "plain-writer":
    // Never touches the set: corelibs' `synchronize()` writes its whole cached domain back, the
    // set's key as it last read it included, so a stale cache rolls the set back. Stopped by a
    // file, not a signal, which could tear the domain's file corelibs rewrites in place.
    guard arguments.count > 4 else { fail("plain-writer needs the path of its stop file") }
    var round = 0
    while access(arguments[4], F_OK) != 0 {
        userDefaults.set(round, forKey: "plain.writer")
        guard userDefaults.synchronize() else { fail("could not synchronize plain.writer") }
        if round == 0 { say("ready") }
        round += 1
    }
    say("stopped \(round)")

case "watch":
    // Reports each notice that another writer stored the set, with the counter it holds then
    // (the stored one when `reload` is given, its own otherwise). Ends after 60 seconds.
    let settings = HostSettings(userDefaults: userDefaults)
    settings.reloadsWhenStoredSettingsChange = arguments.count > 4 && arguments[4] == "reload"
    let observer = NotificationCenter.default.addObserver(
        forName: AppSettingsObject.storedSettingsDidChangeNotification, object: settings, queue: nil
    ) { _ in
        say("told counter=\(settings.counter) unsaved=\(settings.hasUnsavedChanges)")
    }
    say("ready")
    sleep(60)
    NotificationCenter.default.removeObserver(observer)

case "shared-in-init":
    // A subclass whose initialization reads its own `shared`: must stop with a message.
    _ = SelfReferencingSettings.shared
    say("not stopped")

case "steps":
    // For scripts/power-loss-test.sh, which records the file-system calls of this process and
    // needs to know which set was being saved at each of them. Steps, in order:
    //   <postfix>:load              creates the set's object now (it loads what is stored)
    //   <postfix>:triple:<n>        the consistent triple n, synchronized
    //   <postfix>:large:<n>:<length>  the triple n with a label of <length> characters, synchronized
    //   <postfix>:one:<setting>:<n> one setting (see `setOne`), not yet synchronized
    //   <postfix>:sync              synchronizes the set
    //   wait                        prints `@@waiting`, then reads a line from standard input
    //   remove                      `AppSettingsStore.suite(_:).remove()` of the suite
    //   seed:<n>                    n plain keys of the app's own and a backup of set A's key, as
    //                               `seed-others` stores them (UserDefaults, synchronized)
    // Each synchronization is announced by `@@begin <postfix>` before it starts and
    // `@@end <postfix> <fields>` (the set the object holds after it) once it returned; a removal
    // by `@@begin-remove` and `@@end-remove`.
    var objects: [String: HostSettings] = [:]
    func object(_ postfix: String) -> HostSettings {
        if let settings = objects[postfix] { return settings }
        hostKeyPostfix = postfix  // read once, when the object is created
        let settings = HostSettings(userDefaults: userDefaults)
        if let error = settings.lastLoadError { fail("\(postfix): load failed: \(error)") }
        objects[postfix] = settings
        return settings
    }
    for step in arguments.dropFirst(3) {
        let parts = step.split(separator: ":").map(String.init)
        if parts == ["wait"] {
            say("@@waiting")
            _ = readLine()
            continue
        }
        if parts == ["remove"] {
            say("@@begin-remove")
            do { try AppSettingsStore.suite(suite).remove() } catch { fail("remove failed: \(error)") }
            say("@@end-remove")
            continue
        }
        if parts.count == 2, parts[0] == "seed", let count = Int(parts[1]) {
            for index in 0..<count { userDefaults.set(otherValue(index), forKey: "plain.\(index)") }
            userDefaults.set(backupBytes, forKey: "AppSettings.A" + backupSuffix)
            guard userDefaults.synchronize() else { fail("could not synchronize the other keys") }
            continue
        }
        guard parts.count >= 2 else { fail("unknown step \(step)") }
        let settings = object(parts[0])
        switch (parts[1], parts.count) {
        case ("load", 2): continue
        case ("one", 4):
            settings.setOne(parts[2], Int(parts[3]) ?? 0)
            continue
        case ("triple", 3): settings.setTriple(Int(parts[2]) ?? 0)
        case ("large", 4): settings.setLargeTriple(Int(parts[2]) ?? 0, length: Int(parts[3]) ?? 0)
        case ("sync", 2): break
        default: fail("unknown step \(step)")
        }
        say("@@begin \(parts[0])")
        synchronizeOrFail(settings, " in step \(step)")
        say("@@end \(parts[0]) \(settings.fieldsLine)")
    }

case "unavailable":
    // For the test of a store that exists but cannot be read (ProcessTests): run without the
    // permission to read the files at <path>..., which this process owns.
    func errorName(_ error: (any Error)?) -> String {
        guard let error else { return "none" }
        guard let error = error as? AppSettingsError else { return "other" }
        switch error {
        case .storeUnavailable: return "storeUnavailable"
        case .readFailed: return "readFailed"
        case .storeFailed: return "storeFailed"
        default: return "other"
        }
    }
    let paths = Array(arguments.dropFirst(4))
    func files() -> String {
        paths.map { path in
            // Size and time of the last change, read without opening the file.
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                let size = attributes[.size], let date = attributes[.modificationDate] as? Date
            else { return "missing" }
            return "\(size)@\(date.timeIntervalSince1970)"
        }.joined(separator: ",")
    }
    let settings = HostSettings(userDefaults: userDefaults)
    say("load \(errorName(settings.lastLoadError)) \(settings.fieldsLine)")
    if let error = settings.lastLoadError { FileHandle.standardError.write(Data("load: \(error)\n".utf8)) }
    say("files \(files())")
    settings.setOne("label", 9)
    var saveError: (any Error)?
    do { try settings.synchronizeToUserDefaults() } catch { saveError = error }
    say("save \(errorName(saveError)) unsaved=\(settings.hasUnsavedChanges)")
    if let saveError { FileHandle.standardError.write(Data("save: \(saveError)\n".utf8)) }
    say("files \(files())")
    for path in paths where chmod(path, 0o600) != 0 { fail("chmod \(path): \(String(cString: strerror(errno)))") }
    var thenError: (any Error)?
    do { try settings.synchronizeToUserDefaults() } catch { thenError = error }
    say("then \(errorName(thenError)) \(settings.fieldsLine)")
    if let thenError { FileHandle.standardError.write(Data("then: \(thenError)\n".utf8)) }

case "parses":
    // For scripts/power-loss-test.sh: `<path> yes` when the file reads as a property-list
    // dictionary (as CoreFoundation reads a domain file), `<path> no` otherwise. No settings object
    // is made, so corelibs' retries of a damaged domain (three sleeps of 150 ms) are not waited for.
    for path in arguments.dropFirst(4) {
        let data = FileManager.default.contents(atPath: path) ?? Data()
        let plist = try? PropertyListSerialization.propertyList(from: data, format: nil)
        say("\(path) \(plist is [String: Any] ? "yes" : "no")")
    }

case "own-domain":
    // No other code of this process synchronizes anything meanwhile, as tests running alongside
    // in the test process would (corelibs' `UserDefaults.synchronize()` writes every domain).
    guard arguments.count > 4, let other = UserDefaults(suiteName: arguments[4]) else {
        fail("own-domain needs another suite")
    }
    other.set("pending", forKey: "the app's own key")
    let settings = HostSettings(userDefaults: userDefaults)
    settings.setTriple(1)
    synchronizeOrFail(settings)
    settings.setTriple(2)
    do { try settings.resetToUserDefaults() } catch { fail("reset: \(error)") }
    _ = HostSettings(userDefaults: userDefaults)
    let otherFile =
        (settings.settingsStore.domainFileURL?.deletingLastPathComponent().path ?? "") + "/" + arguments[4] + ".plist"
    let written =
        FileManager.default.contents(atPath: otherFile).map {
            String(decoding: $0, as: UTF8.self).contains("pending")
        } ?? false
    say("other domain written: \(written ? "yes" : "no") counter=\(settings.counter)")

case "seed-others":
    // What the user had besides the set: the kill test counts each of them after every kill.
    let settings = HostSettings(userDefaults: userDefaults)
    for index in 0..<numberArgument(4) { userDefaults.set(otherValue(index), forKey: "plain.\(index)") }
    userDefaults.set(backupBytes, forKey: settings.userDefaultsKey + backupSuffix)
    guard userDefaults.synchronize() else { fail("could not synchronize the other keys") }
    say("ok")

case "others":
    let settings = HostSettings(userDefaults: userDefaults)
    let count = numberArgument(4)
    let stored = domainDictionary(of: settings) ?? [:]
    let others = (0..<count).filter { index in
        (stored["plain.\(index)"] as? String) == otherValue(index)
    }.count
    let backups = (stored[settings.userDefaultsKey + backupSuffix] as? Data) == backupBytes ? 1 : 0
    say("others=\(others)/\(count) backups=\(backups)/1")

case "fields-of":
    // One fresh load of each set: `<postfix> counter=<n> label=<s> values=<a,b,…> error=<yes|no>`.
    for postfix in arguments.dropFirst(3) {
        hostKeyPostfix = postfix
        let settings = HostSettings(userDefaults: userDefaults)
        say("\(postfix) \(settings.fieldsLine) error=\(settings.lastLoadError == nil ? "no" : "yes")")
    }

case "overrides":
    let settings = OverrideSettings(userDefaults: userDefaults)
    if arguments.count > 4, arguments[4] == "assign" {
        settings.soundLevel = 0.25
        settings.audio.volume = 7
        do { try settings.synchronizeToUserDefaults() } catch { fail("synchronize failed: \(error)") }
    }
    let readings = settings.readings
    let output: [String: Any] = [
        "values": readings.mapValues(\.value),
        "sources": readings.mapValues(\.source.rawValue),
        "ignored": settings.ignoredOverrides.map {
            [
                "setting": $0.setting, "source": $0.source.rawValue, "origin": $0.origin, "value": $0.value,
                "reason": $0.reason,
            ]
        },
        "stored": jsonValue(settings.dictionaryRepresentation()),
        "unsaved": settings.hasUnsavedChanges,
    ]
    let json = try JSONSerialization.data(withJSONObject: output, options: [.sortedKeys])
    say(String(decoding: json, as: UTF8.self))

default:
    fail("unknown command \(command)")
}
