import Foundation
import CometSchema

/// The bookkeeping that makes alarms go off exactly once, shared by the daemon's timer and
/// `cometcal remind`: alarms are planned a few minutes ahead, each is recorded as fired in the
/// store before anyone hears of it (so a restart, or a daemon and a `remind` on one store, never
/// fire one twice), and the store keeps how far alarms were looked at, so one whose moment
/// passed while nothing watched fires once, later, marked late. Not thread-safe: one caller
/// (a serial queue, or a loop) drives it.
public final class AlarmWatch {
    /// How far ahead the alarms are planned; `invalidate()` plans again at the next tick.
    public static let horizon: TimeInterval = 300
    /// An alarm fired later than this after its moment is late (the daemon's timer ticks twice
    /// a second and a change is planned within a second, so only an alarm missed is).
    public static let lateAfter: TimeInterval = 2.5
    /// The store's fact: how far alarms were looked at, in seconds since 1970.
    public static let checkedKey = "alarms.checkedUntil"

    public typealias Log = (String, [(String, String)]) -> Void

    private let read: (Date, Date) throws -> [DueAlarm]
    private let record: (DueAlarm, Date, Bool) throws -> Bool
    private let save: (String, String) throws -> Void
    private let log: Log
    private var plan: [DueAlarm] = []
    private var plannedUntil = Date.distantPast
    public private(set) var checkedUntil: Date
    /// Whether the store had never been watched: then alarms are looked at from now on, older
    /// ones being history, not missed.
    public let isFirstWatch: Bool
    private var savedCheck = Date.distantPast
    private var stale = false
    private var lastPlan = Date.distantPast

    /// - Parameters:
    ///   - read: the alarms due in [from, to) and not fired (`IntentEngine.dueAlarms`).
    ///   - record: records one as fired at a moment, late or not; false when it was already.
    ///   - save: stores a fact (`IntentEngine.storeFact`).
    public init(storedCheck: String?, now: Date, read: @escaping (Date, Date) throws -> [DueAlarm],
                record: @escaping (DueAlarm, Date, Bool) throws -> Bool, save: @escaping (String, String) throws -> Void, log: @escaping Log) {
        self.read = read
        self.record = record
        self.save = save
        self.log = log
        let stored = storedCheck.flatMap { Double($0) }.map { Date(timeIntervalSince1970: $0) }
        isFirstWatch = stored == nil
        checkedUntil = stored ?? now
    }

    /// The store changed: plan again (at most once a second; planning reads a month of
    /// occurrences either side, and re-planning after every write was 22% of a write's CPU).
    public func invalidate() { stale = true }

    /// Fires what is due at `now`, in order of its moment: each recorded before it is returned.
    public func tick(now: Date) -> [(alarm: DueAlarm, late: Bool)] {
        if now >= plannedUntil || (stale && now.timeIntervalSince(lastPlan) >= 1) {
            stale = false
            lastPlan = now
            do {
                let until = now.addingTimeInterval(AlarmWatch.horizon)
                plan = try read(checkedUntil, until)
                plannedUntil = until.addingTimeInterval(-AlarmWatch.horizon / 2)
            } catch {
                log("alarms could not be read", [("error", "\(error)")])
                return []
            }
        }
        var fired: [(alarm: DueAlarm, late: Bool)] = []
        while let next = plan.first, next.trigger <= now {
            plan.removeFirst()
            let late = now.timeIntervalSince(next.trigger) > AlarmWatch.lateAfter
            do {
                guard try record(next, now, late) else { continue }
            } catch {
                log("an alarm could not be recorded, so it is not fired yet", [("event", next.title), ("error", "\(error)")])
                plannedUntil = .distantPast
                break
            }
            fired.append((next, late))
        }
        if plannedUntil != .distantPast { checkedUntil = max(checkedUntil, now) }
        saveCheck(now: now, force: !fired.isEmpty)
        return fired
    }

    /// Stores how far alarms were looked at: at most every 10 seconds, unless forced.
    public func saveCheck(now: Date, force: Bool) {
        guard force || now.timeIntervalSince(savedCheck) >= 10 else { return }
        savedCheck = now
        try? save(AlarmWatch.checkedKey, String(checkedUntil.timeIntervalSince1970))
    }
}
