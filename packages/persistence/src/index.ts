export { x } from '@pits/domain';
