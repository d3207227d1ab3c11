/** Who performed an action: the acting partner (`{id, name, email}` in responses). */
export interface Actor {
  id: number;
  name: string;
  email: string;
}
