// Clang thread-safety annotations: say which lock guards which data and
// which functions must (or must not) be called with a lock held; clang's
// -Wthread-safety checks them at compile time. They expand to nothing on
// other compilers (g++ ignores them; the clang build checks for everyone).
//
// The vocabulary (see common/mutex.h for the types that carry it):
//   GUARDED_BY(mu)         on a member: read or written only with mu held
//                          (reads may hold mu shared).
//   PT_GUARDED_BY(mu)      on a pointer member: the pointee is guarded.
//   REQUIRES(mu)           on a function: callers hold mu exclusively.
//   REQUIRES_SHARED(mu)    callers hold mu at least shared.
//   EXCLUDES(mu)           callers do not hold mu (the function takes it).
//   ACQUIRED_AFTER(mu)     on a lock member: it is taken after / before mu
//   ACQUIRED_BEFORE(mu)    when both are held (the build checks the order
//                          with -Wthread-safety-beta).
//   ACQUIRE / RELEASE / ACQUIRE_SHARED / RELEASE_SHARED / TRY_ACQUIRE
//                          on lock types and functions that lock or unlock.
//   ASSERT_CAPABILITY(mu)  the caller holds mu from here on (for code the
//                          analysis cannot follow; checks nothing itself).
//   NO_THREAD_SAFETY_ANALYSIS  turns the check off for one function body;
//                          say why next to it.
#ifndef DRALLOC_COMMON_THREAD_ANNOTATIONS_H_
#define DRALLOC_COMMON_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define DRALLOC_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define DRALLOC_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(name) DRALLOC_THREAD_ANNOTATION(capability(name))
#define SCOPED_CAPABILITY DRALLOC_THREAD_ANNOTATION(scoped_lockable)

#define GUARDED_BY(x) DRALLOC_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) DRALLOC_THREAD_ANNOTATION(pt_guarded_by(x))

#define ACQUIRED_BEFORE(...) \
  DRALLOC_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#define ACQUIRED_AFTER(...) \
  DRALLOC_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))

#define REQUIRES(...) \
  DRALLOC_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) \
  DRALLOC_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#define EXCLUDES(...) DRALLOC_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))

#define ACQUIRE(...) DRALLOC_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) \
  DRALLOC_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) DRALLOC_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) \
  DRALLOC_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define RELEASE_GENERIC(...) \
  DRALLOC_THREAD_ANNOTATION(release_generic_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) \
  DRALLOC_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define TRY_ACQUIRE_SHARED(...) \
  DRALLOC_THREAD_ANNOTATION(try_acquire_shared_capability(__VA_ARGS__))

#define ASSERT_CAPABILITY(x) DRALLOC_THREAD_ANNOTATION(assert_capability(x))
#define ASSERT_SHARED_CAPABILITY(x) \
  DRALLOC_THREAD_ANNOTATION(assert_shared_capability(x))
#define RETURN_CAPABILITY(x) DRALLOC_THREAD_ANNOTATION(lock_returned(x))

#define NO_THREAD_SAFETY_ANALYSIS \
  DRALLOC_THREAD_ANNOTATION(no_thread_safety_analysis)

#endif  // DRALLOC_COMMON_THREAD_ANNOTATIONS_H_
