import Foundation
import CometHTTP
import CometDAV
import CometIntents

/// REPORT on a calendar: calendar-query, calendar-multiget, sync-collection, free-busy-query.
extension Context {
    func report(_ collection: CalendarCollection, segment: String) throws -> HTTPResponse {
        let report: DAVReportRequest
        do {
            report = try DAVReportRequest.decode(body: request.body)
        } catch {
            throw Self.failure(for: error)
        }
        switch report {
        case .calendarQuery(let query):
            try refuseUnsupported(query.calendarData)
            return try calendarQuery(query, collection: collection, segment: segment)
        case .calendarMultiget(let multiget):
            try refuseUnsupported(multiget.calendarData)
            return try self.multiget(multiget, collection: collection, segment: segment)
        case .syncCollection(let sync):
            try refuseUnsupported(sync.calendarData)
            return try syncCollection(sync, collection: collection, segment: segment)
        case .freeBusyQuery(let query):
            return try freeBusy(query, collection: collection)
        case .unsupported(let name):
            throw Failure.precondition(403, .supportedReport(DAVReportRequest.supportedReports), "the report \(name) is not served here")
        }
    }

    /// limit-recurrence-set and limit-freebusy-set are not served: refused, never answered
    /// unlimited in silence. `expand` is served (`expanded`).
    private func refuseUnsupported(_ data: DAVCalendarDataRequest?) throws {
        guard let data else { return }
        if data.limitRecurrenceSet != nil || data.limitFreebusySet != nil {
            throw Failure.precondition(403, .supportedCalendarData,
                                       "calendar-data with limit-recurrence-set or limit-freebusy-set is not served; ask for the whole events, or for them expanded")
        }
        if let type = data.contentType, type.lowercased() != "text/calendar" {
            throw Failure.precondition(403, .supportedCalendarData, "calendar data is text/calendar, not \(type)")
        }
    }

    /// The resources' texts, each expanded over `range` when calendar-data asks for it.
    private func expanding(_ found: [(resource: CalendarResource, text: String)], _ data: DAVCalendarDataRequest?,
                           in collection: CalendarCollection) throws -> [(resource: CalendarResource, text: String)] {
        guard let range = data?.expand else { return found }
        return try found.map { ($0.resource, try expanded($0.resource, $0.text, range, in: collection)) }
    }

    /// RFC 4791 §9.6.5: one component per instance in the range, with its RECURRENCE-ID when
    /// it belongs to a series, times in UTC, no recurrence properties and no VTIMEZONE.
    private func expanded(_ resource: CalendarResource, _ text: String, _ range: DAVTimeRange, in collection: CalendarCollection) throws -> String {
        let from = range.startDate ?? .distantPast
        let to = range.endDate ?? .distantFuture
        let original = ICalendarComponents.parse(text)
        let dropped: Set<String> = ["DTSTART", "DTEND", "DURATION", "RRULE", "RDATE", "EXRULE", "EXDATE", "RECURRENCE-ID"]
        var components: [DAVComponent] = []
        // A recurring to-do (its RRULE kept as written): its instances in the range.
        if let todo = original.components.first(where: { $0.name == "VTODO" }) {
            let cap = 10_000
            guard let instances = ICalendarComponents.recurringToDoInstances(todo, range, zone: engine.timeZone, limit: cap + 1) else { return text }
            if instances.count > cap {
                throw Failure.precondition(507, .numberOfMatchesWithinLimits, "the to-do \(resource.uid) has more than \(cap) occurrences in the range to expand; ask for a shorter range")
            }
            components = instances.filter { ICalendarComponents.todoOverlaps($0, range, zone: engine.timeZone) }
            return ICalendarComponents.text(of: DAVComponent(name: "VCALENDAR", properties: original.properties, components: components))
        }
        for instance in try engine.expandedInstances(in: collection.id, uid: resource.uid, from: from, to: to) {
            guard let source = ICalendarComponents.parse(instance.text).components.first(where: { $0.name != "VTIMEZONE" }) else { continue }
            var properties = source.properties.filter { !dropped.contains($0.name) }
            if let recurrenceID = instance.recurrenceID {
                properties.append(DAVComponentProperty(name: "RECURRENCE-ID", value: ICalendarComponents.utcText(recurrenceID)))
            }
            properties.append(DAVComponentProperty(name: "DTSTART", value: ICalendarComponents.utcText(instance.start)))
            properties.append(DAVComponentProperty(name: "DTEND", value: ICalendarComponents.utcText(instance.end)))
            components.append(DAVComponent(name: source.name, properties: properties, components: source.components))
        }
        return ICalendarComponents.text(of: DAVComponent(name: "VCALENDAR", properties: original.properties, components: components))
    }

    /// Each resource's `<D:response>`. With `data` asking for whole events (not expanded), one
    /// written before for the same resource, unchanged, the same name and the same properties
    /// is put in as it was written: an unchanged event is written once, not at every query.
    private func responses(_ found: [(resource: CalendarResource, text: String)], segment: String, selection: DAVPropertySelection,
                           in calendar: CalendarCollection, data: DAVCalendarDataRequest?) -> [DAVResponse] {
        let collection = Paths.collection(user, segment)
        let keeps = data?.expand == nil
        // What the response depends on besides the resource and its name, as a short key: a
        // long one was hashed and compared again for every event.
        // (Hasher's seed is the process's, and the keys live no longer than it.)
        var hasher = Hasher()
        hasher.combine("caldav.response\n\(user)\n\(selection)\n\(data.map { "\($0)" } ?? "")")
        let kind = String(UInt(bitPattern: hasher.finalize()), radix: 16) + "/"
        return found.map { resource, text in
            let href = collection + DAVHref.encodeSegment(resource.name)
            let key = kind + resource.name
            if keeps, let bytes = engine.keptRendering(of: resource, in: calendar.id, key: key) {
                return DAVResponse(href: href, body: .written(bytes))
            }
            let response = Self.response(href: href, available: resourceProperties(resource, text: text, selection: selection),
                                         selection: selection, expensive: [.caldav("calendar-data")])
            guard keeps, let bytes = response.writtenBytes() else { return response }
            engine.keepRendering(bytes, of: resource, in: calendar.id, key: key)
            return DAVResponse(href: href, body: .written(bytes))
        }
    }

    private func calendarQuery(_ query: DAVCalendarQuery, collection: CalendarCollection, segment: String) throws -> HTTPResponse {
        // The usual query (VCALENDAR > VEVENT with a time-range): only the events with an
        // occurrence in the range are read at all; any other reads the calendar once.
        var uids: Set<String>?
        if case .matches(_, _, let compFilters) = query.filter.test, compFilters.count == 1, let inner = compFilters.first,
           inner.name == "VEVENT", case .matches(let range?, _, _) = inner.test {
            uids = try overlapping(range, in: collection)
        }
        var cache: [DAVTimeRange: Set<String>] = [:]
        let evaluator = DAVFilterEvaluator(
            componentOverlaps: { component, ancestors, range in
                // On VCALENDAR itself (some clients filter so): whether any of its events does.
                let named = component.name.uppercased() == "VCALENDAR" ? component.components : [component]
                if component.name.uppercased() == "VALARM", let owner = ancestors.last {
                    return try alarmFires(component, of: owner, in: range, collection: collection)
                }
                guard named.allSatisfy({ ["VEVENT", "VTODO", "VJOURNAL", "VTIMEZONE"].contains($0.name.uppercased()) }) else {
                    throw Failure.precondition(403, .supportedFilter, "a time-range on \(component.name) is not served; time ranges are answered for events, to-dos and alarms")
                }
                // To-dos by RFC 4791 §9.9's table, from their own properties.
                if let todo = named.first(where: { $0.name.uppercased() == "VTODO" }) {
                    return ICalendarComponents.todoOverlaps(todo, range, zone: engine.timeZone)
                }
                if cache[range] == nil { cache[range] = try overlapping(range, in: collection) }
                return named.contains { item in
                    guard let uid = item.properties.first(where: { $0.name.uppercased() == "UID" })?.value else { return false }
                    return cache[range]?.contains(uid) ?? false
                }
            },
            propertyOverlaps: { property, _, range in
                guard let instant = ICalendarComponents.instant(of: property, zone: engine.timeZone) else {
                    throw Failure.precondition(403, .supportedFilter, "the time-range on \(property.name) cannot read its value \(property.value)")
                }
                return (range.startDate.map { instant >= $0 } ?? true)
                    && (range.endDate.map { instant < $0 } ?? true)
            })
        var matched: [(CalendarResource, String)] = []
        let decided = Self.componentTest(query.filter, rangeAnswered: uids != nil)
        for (resource, text) in try engine.resourceTexts(in: collection.id, uids: uids) {
            if let decided {
                if decided(resource.components) { matched.append((resource, text)) }
                continue
            }
            let calendar = ICalendarComponents.parse(text)
            do {
                if try evaluator.matches(query.filter, calendar: calendar) { matched.append((resource, text)) }
            } catch let failure as Failure {
                throw failure
            } catch {
                throw Failure.precondition(403, .supportedFilter, "\(error)")
            }
        }
        return Self.multistatus(responses(try expanding(matched, query.calendarData, in: collection), segment: segment, selection: query.properties,
                                          in: collection, data: query.calendarData))
    }

    /// The answer of a filter that asks only which components a resource holds (what most
    /// clients send: VCALENDAR > VEVENT, with a time-range answered already when `rangeAnswered`),
    /// from the resource's component names, without parsing its text; nil for any other filter.
    static func componentTest(_ filter: DAVCompFilter, rangeAnswered: Bool) -> ((Set<String>) -> Bool)? {
        guard filter.name == "VCALENDAR", case .matches(nil, let props, let inner) = filter.test, props.isEmpty else { return nil }
        guard let only = inner.first else { return { _ in true } }
        let named: Set<String> = ["VEVENT", "VTODO", "VJOURNAL"]
        guard inner.count == 1, named.contains(only.name) else { return nil }
        switch only.test {
        case .isNotDefined:
            return { !$0.contains(only.name) }
        case .matches(let range, let props, let compFilters):
            guard props.isEmpty, compFilters.isEmpty, range == nil || (rangeAnswered && only.name == "VEVENT") else { return nil }
            return { $0.contains(only.name) }
        }
    }

    /// RFC 4791 §9.9 for VALARM: whether the alarm fires (its trigger or a repeat of it) in the
    /// range. A relative trigger fires for each occurrence of its event, from the engine's own
    /// expansion; an alarm of the series fires for the occurrences no override replaces.
    private func alarmFires(_ alarm: DAVComponent, of owner: DAVComponent, in range: DAVTimeRange, collection: CalendarCollection) throws -> Bool {
        let (from, to) = range.bounds
        guard let trigger = alarm.properties.first(where: { $0.name.uppercased() == "TRIGGER" }) else {
            throw Failure.precondition(403, .supportedFilter, "an alarm of \(owner.name) has no TRIGGER, so no time-range can be answered for it")
        }
        let repeats = alarm.properties.first { $0.name.uppercased() == "REPEAT" }.flatMap { Int($0.value) } ?? 0
        let interval = alarm.properties.first { $0.name.uppercased() == "DURATION" }.flatMap { ICalendarComponents.seconds(ofDuration: $0.value) } ?? 0
        let span = repeats > 0 && interval > 0 ? TimeInterval(repeats) * interval : 0
        /// Whether the trigger at `first` or one of its repeats is in [from, to).
        func fires(_ first: Date) -> Bool {
            if first >= from { return first < to }
            guard span > 0, first.addingTimeInterval(span) >= from else { return false }
            let steps = (from.timeIntervalSince(first) / interval).rounded(.up)
            return first.addingTimeInterval(steps * interval) < to
        }
        let isAbsolute = trigger.parameters.contains { $0.name.uppercased() == "VALUE" && $0.values.first?.uppercased() == "DATE-TIME" }
            || !trigger.value.contains("P")
        if isAbsolute {
            guard let instant = ICalendarComponents.instant(of: trigger, zone: engine.timeZone) else {
                throw Failure.precondition(403, .supportedFilter, "the alarm's TRIGGER \(trigger.value) cannot be read")
            }
            return fires(instant)
        }
        guard let offset = ICalendarComponents.seconds(ofDuration: trigger.value) else {
            throw Failure.precondition(403, .supportedFilter, "the alarm's TRIGGER \(trigger.value) cannot be read")
        }
        let fromEnd = trigger.parameters.contains { $0.name.uppercased() == "RELATED" && $0.values.first?.uppercased() == "END" }
        func property(_ name: String) -> DAVComponentProperty? { owner.properties.first { $0.name.uppercased() == name } }
        if owner.name.uppercased() == "VTODO" {
            let (start, due) = ICalendarComponents.todoTimes(owner, zone: engine.timeZone)
            guard let base = fromEnd ? due : (start ?? due) else { return false }
            return fires(base.addingTimeInterval(offset))
        }
        guard let uid = property("UID")?.value else { return false }
        let ownRecurrence = property("RECURRENCE-ID").flatMap { ICalendarComponents.instant(of: $0, zone: engine.timeZone) }
        // An occurrence whose alarm can fire in the range overlaps the range moved back by the
        // trigger's offset and its repeats.
        let window = (from.addingTimeInterval(-offset - span), to.addingTimeInterval(-offset))
        for instance in try engine.expandedInstances(in: collection.id, uid: uid, from: window.0, to: max(window.1, window.0.addingTimeInterval(1))) {
            if let ownRecurrence {
                guard instance.isOverride, instance.recurrenceID == ownRecurrence else { continue }
            } else if instance.isOverride {
                continue
            }
            if fires((fromEnd ? instance.end : instance.start).addingTimeInterval(offset)) { return true }
        }
        return false
    }

    /// The UIDs of the calendar's events with an occurrence in the range (the engine's expansion).
    private func overlapping(_ range: DAVTimeRange, in collection: CalendarCollection) throws -> Set<String> {
        let (from, to) = range.bounds
        return try engine.resourceUIDs(in: collection.id, overlapping: from, to: to)
    }

    private func multiget(_ multiget: DAVCalendarMultiget, collection: CalendarCollection, segment: String) throws -> HTTPResponse {
        var names: [String] = []
        var missing: [DAVResponse] = []
        for href in multiget.hrefs {
            do {
                let target = try CalDAVService.target(of: try DAVHref.path(fromHref: href))
                if case .resource(let owner, let inSegment, let name) = target, owner == user, inSegment == segment {
                    names.append(name)
                    continue
                }
            } catch {}
            missing.append(DAVResponse(href: href, body: .status(404), description: "not an event of this calendar"))
        }
        let found = try expanding(try engine.resourceTexts(in: collection.id, named: names), multiget.calendarData, in: collection)
        let foundNames = Set(found.map(\.resource.name))
        for name in names where !foundNames.contains(name) {
            missing.append(DAVResponse(href: Paths.resource(user, segment, name), body: .status(404)))
        }
        return Self.multistatus(responses(found, segment: segment, selection: multiget.properties, in: collection, data: multiget.calendarData) + missing)
    }

    private func syncCollection(_ sync: DAVSyncCollection, collection: CalendarCollection, segment: String) throws -> HTTPResponse {
        var head: Int64
        var changed: [CalendarResource]
        var removed: [String] = []
        var sequences: [String: Int64] = [:]
        if sync.syncToken.isEmpty {
            head = try engine.changeHead()
            changed = try engine.resources(in: collection.id)
        } else {
            let prefix = Self.syncToken(0).dropLast()
            guard sync.syncToken.hasPrefix(prefix), let since = Int64(sync.syncToken.dropFirst(prefix.count)),
                  let changes = try engine.collectionChanges(in: collection.id, since: since) else {
                throw Failure.precondition(403, .validSyncToken, "the sync token \(sync.syncToken) is not one this calendar can answer from (too old, or from another store); sync again without a token")
            }
            head = changes.head
            changed = changes.changed
            removed = changes.removed
            sequences = changes.sequences
        }
        var truncated = false
        if let limit = sync.limit, changed.count + removed.count > limit {
            // RFC 6578 §3.6: the first changes, a token that goes on after the last of them, and
            // a 507 for the request-URI. A first sync is cut in the order of the change feed.
            if sync.syncToken.isEmpty {
                let refused = Failure.precondition(507, .numberOfMatchesWithinLimits,
                                                   "the calendar has \(changed.count) resources, more than the limit of \(limit), and the change feed no longer orders them all (older deletions were forgotten, or some predate it): ask without a limit")
                guard let feed = try engine.collectionChanges(in: collection.id, since: 0) else { throw refused }
                // Resources the feed has no number for (older than it) come first; the cut must
                // fall after them, or the token could not find the rest.
                let ordered = changed.sorted { (feed.sequences[$0.name] ?? 0, $0.name) < (feed.sequences[$1.name] ?? 0, $1.name) }
                guard let last = ordered.prefix(limit).last, let number = feed.sequences[last.name], number > 0 else { throw refused }
                changed = Array(ordered.prefix(limit))
                head = number
                truncated = true
            }
        }
        if let limit = sync.limit, !sync.syncToken.isEmpty, changed.count + removed.count > limit {
            let ordered = (changed.map { ($0.name, true) } + removed.map { ($0, false) }).sorted { (sequences[$0.0] ?? 0) < (sequences[$1.0] ?? 0) }
            let kept = ordered.prefix(limit)
            let keptNames = Set(kept.map(\.0))
            changed = changed.filter { keptNames.contains($0.name) }
            removed = removed.filter { keptNames.contains($0) }
            head = kept.last.flatMap { sequences[$0.0] } ?? head
            truncated = true
        }
        changed.sort { $0.name < $1.name }
        var responses: [DAVResponse] = []
        if Self.asks(sync.properties, for: .caldav("calendar-data")) {
            responses = self.responses(try expanding(try engine.resourceTexts(in: collection.id, named: changed.map(\.name)), sync.calendarData, in: collection),
                                       segment: segment, selection: sync.properties, in: collection, data: sync.calendarData)
        } else {
            responses = changed.map { resource in
                Self.response(href: Paths.resource(user, segment, resource.name), available: resourceProperties(resource, text: nil, selection: sync.properties),
                              selection: sync.properties)
            }
        }
        responses += removed.map { DAVResponse(href: Paths.resource(user, segment, $0), body: .status(404)) }
        if truncated {
            responses.append(DAVResponse(href: Paths.collection(user, segment), body: .status(507), error: .numberOfMatchesWithinLimits,
                                         description: "more changes follow; sync again from this token"))
        }
        return Self.multistatus(responses, syncToken: Self.syncToken(head))
    }

    /// A VFREEBUSY of the calendar's busy times in the range (RFC 4791 §7.10).
    private func freeBusy(_ query: DAVFreeBusyQuery, collection: CalendarCollection) throws -> HTTPResponse {
        guard let start = query.timeRange.start else {
            throw Failure(.text(400, "A free-busy-query needs a time-range with a start.\n"))
        }
        let from = Date(timeIntervalSince1970: TimeInterval(start.secondsSince1970))
        let to = query.timeRange.endDate ?? from.addingTimeInterval(366 * 86_400)
        let busy = try engine.busyPeriods(in: collection.id, from: from, to: to)
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//CometCal//CalDAV//EN", "BEGIN:VFREEBUSY",
                     "DTSTAMP:" + ICalendarComponents.utcText(Date()), "DTSTART:" + ICalendarComponents.utcText(from), "DTEND:" + ICalendarComponents.utcText(to)]
        for span in busy {
            lines.append("FREEBUSY;FBTYPE=\(span.kind.rawValue):" + ICalendarComponents.utcText(span.start) + "/" + ICalendarComponents.utcText(span.end))
        }
        lines += ["END:VFREEBUSY", "END:VCALENDAR"]
        return HTTPResponse(status: 200, headers: ["Content-Type": "text/calendar; charset=utf-8"], body: Array((lines.joined(separator: "\r\n") + "\r\n").utf8))
    }
}
