// Each stop attempt is caught and the loop resumes: nothing inside the guest
// can catch the host's limit.
for (;;) {
  try {
    for (;;) {}
  } catch (e) {
    console.log('caught', e);
  } finally {
    for (;;) {}
  }
}
