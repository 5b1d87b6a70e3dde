// Columns count code points: the accented letters before the error are one each.
const café = 'ok';
const naïve = café + ) ;
